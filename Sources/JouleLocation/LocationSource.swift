import JouleHardware

/// The source a `LocationSourceSpec` names, opened: a replay file read and checked, or a
/// fixed position on the clock's `now`, or GeoClue2 on the system bus. gpsd is not built yet.
public enum LocationSource: LocationReceiver {
    case replay(ReplayReceiver)
    case fixed(FixedReceiver)
    case geoclue(GeoClueReceiver)

    /// Opens `spec`; `now` starts a fixed source's clock (the CLI passes the wall clock). GeoClue
    /// opens on the bus, asynchronously: through `open(_:ttffMicros:now:accuracyM:…)` below.
    public static func open(_ spec: LocationSourceSpec, ttffMicros: Int64, now: Int64) throws(LocationError) -> LocationSource {
        switch spec {
        case .replay(let path): .replay(ReplayReceiver(track: try ReplayTrack.read(path: path), ttffMicros: ttffMicros))
        case .fixed(let latitude, let longitude, let accuracy):
            .fixed(FixedReceiver(latitude: latitude, longitude: longitude, accuracyM: accuracy, now: now, ttffMicros: ttffMicros))
        case .auto, .gpsd, .geoclue: throw .notBuilt(source: spec.description)
        }
    }

    /// Opens `spec`, live sources included: GeoClue on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`
    /// in `environment`), asked for the level that meets `accuracyM`, with `distanceM` as its
    /// `DistanceThreshold`. Recorded and fixed sources open as `open(_:ttffMicros:now:)` does.
    public static func open(
        _ spec: LocationSourceSpec, ttffMicros: Int64, now: Int64, accuracyM: Double, distanceM: Double = 0,
        environment: [String: String]? = nil
    ) async throws(LocationError) -> LocationSource {
        switch spec {
        case .geoclue:
            .geoclue(try await GeoClueReceiver.open(accuracyM: accuracyM, distanceM: distanceM, environment: environment))
        default: try open(spec, ttffMicros: ttffMicros, now: now)
        }
    }

    /// `--source auto`'s GeoClue half: nil when GeoClue's name is owned (or activatable) on the
    /// system bus, else what stood in the way, for the message naming every source tried.
    public static func geoClueUnavailability(environment: [String: String]? = nil) async -> String? {
        await GeoClueClient.unavailability(environment: environment).map(\.description)
    }

    /// Ends a live source's session (GeoClue's client deleted, the bus closed); nothing for
    /// recorded sources.
    public func close() async {
        if case .geoclue(let r) = self { await r.close() }
    }

    public var failure: LocationError? {
        if case .geoclue(let r) = self { r.failure } else { nil }
    }

    public mutating func requestAccuracy(_ metres: Double) async {
        if case .geoclue(var r) = self {
            await r.requestAccuracy(metres)
            self = .geoclue(r)
        }
    }

    public var name: String {
        switch self {
        case .replay(let r): r.name
        case .fixed(let r): r.name
        case .geoclue(let r): r.name
        }
    }

    public var startTime: Int64? {
        switch self {
        case .replay(let r): r.startTime
        case .fixed(let r): r.startTime
        case .geoclue(let r): r.startTime
        }
    }

    public var endTime: Int64? {
        switch self {
        case .replay(let r): r.endTime
        case .fixed(let r): r.endTime
        case .geoclue(let r): r.endTime
        }
    }

    public mutating func turnOn(at time: Int64) async {
        switch self {
        case .replay(var r): await r.turnOn(at: time); self = .replay(r)
        case .fixed(var r): await r.turnOn(at: time); self = .fixed(r)
        case .geoclue(var r): await r.turnOn(at: time); self = .geoclue(r)
        }
    }

    public mutating func turnOff(at time: Int64) async {
        switch self {
        case .replay(var r): await r.turnOff(at: time); self = .replay(r)
        case .fixed(var r): await r.turnOff(at: time); self = .fixed(r)
        case .geoclue(var r): await r.turnOff(at: time); self = .geoclue(r)
        }
    }

    public mutating func sleep(until time: Int64) async {
        switch self {
        case .replay(var r): await r.sleep(until: time); self = .replay(r)
        case .fixed(var r): await r.sleep(until: time); self = .fixed(r)
        case .geoclue(var r): await r.sleep(until: time); self = .geoclue(r)
        }
    }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        switch self {
        case .replay(var r):
            let read = await r.next(before: deadline)
            self = .replay(r)
            return read
        case .fixed(var r):
            let read = await r.next(before: deadline)
            self = .fixed(r)
            return read
        case .geoclue(var r):
            let read = await r.next(before: deadline)
            self = .geoclue(r)
            return read
        }
    }
}
