import JouleHardware

/// The source a `LocationSourceSpec` names, opened: a replay file read and checked, a fixed
/// position on the clock's `now`, live gpsd, or GeoClue2 on the system bus (the live ones in
/// `LocationSource+Live.swift`).
public enum LocationSource: LocationReceiver, Sendable {
    case replay(ReplayReceiver)
    case fixed(FixedReceiver)
    case gpsd(GPSDReceiver)
    case geoclue(GeoClueReceiver)
    /// `fixed:` on the wall clock (the daemon's): a fix a second while on.
    case stationary(StationaryReceiver)

    /// Opens `spec` without touching the system: replay and fixed sources; the live ones open
    /// with the async `open(_:ttffMicros:now:gpsd:accuracyM:…)`. `now` starts a fixed source's
    /// clock (the CLI passes the wall clock).
    public static func open(_ spec: LocationSourceSpec, ttffMicros: Int64, now: Int64) throws(LocationError) -> LocationSource {
        switch spec {
        case .replay(let path): .replay(ReplayReceiver(track: try ReplayTrack.read(path: path), ttffMicros: ttffMicros))
        case .fixed(let latitude, let longitude, let accuracy):
            .fixed(FixedReceiver(latitude: latitude, longitude: longitude, accuracyM: accuracy, now: now, ttffMicros: ttffMicros))
        case .auto, .gpsd, .geoclue:
            throw .unavailable(message: "--source \(spec): a live source opens with LocationSource.open(_:ttffMicros:now:gpsd:accuracyM:)")
        }
    }

    /// Ends a live source's session (GeoClue's client deleted, the bus closed); nothing for
    /// the others (gpsd's connection closes whenever the receiver goes off).
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
        case .gpsd(let r): r.name
        case .geoclue(let r): r.name
        case .stationary(let r): r.name
        }
    }

    public var startTime: Int64? {
        switch self {
        case .replay(let r): r.startTime
        case .fixed(let r): r.startTime
        case .gpsd(let r): r.startTime
        case .geoclue(let r): r.startTime
        case .stationary(let r): r.startTime
        }
    }

    public var endTime: Int64? {
        switch self {
        case .replay(let r): r.endTime
        case .fixed(let r): r.endTime
        case .gpsd(let r): r.endTime
        case .geoclue(let r): r.endTime
        case .stationary(let r): r.endTime
        }
    }

    public mutating func turnOn(at time: Int64) async {
        switch self {
        case .replay(var r): await r.turnOn(at: time); self = .replay(r)
        case .fixed(var r): await r.turnOn(at: time); self = .fixed(r)
        case .gpsd(var r): await r.turnOn(at: time); self = .gpsd(r)
        case .geoclue(var r): await r.turnOn(at: time); self = .geoclue(r)
        case .stationary(var r): await r.turnOn(at: time); self = .stationary(r)
        }
    }

    public mutating func turnOff(at time: Int64) async {
        switch self {
        case .replay(var r): await r.turnOff(at: time); self = .replay(r)
        case .fixed(var r): await r.turnOff(at: time); self = .fixed(r)
        case .gpsd(var r): await r.turnOff(at: time); self = .gpsd(r)
        case .geoclue(var r): await r.turnOff(at: time); self = .geoclue(r)
        case .stationary(var r): await r.turnOff(at: time); self = .stationary(r)
        }
    }

    public mutating func sleep(until time: Int64) async {
        switch self {
        case .replay(var r): await r.sleep(until: time); self = .replay(r)
        case .fixed(var r): await r.sleep(until: time); self = .fixed(r)
        case .gpsd(var r): await r.sleep(until: time); self = .gpsd(r)
        case .geoclue(var r): await r.sleep(until: time); self = .geoclue(r)
        case .stationary(var r): await r.sleep(until: time); self = .stationary(r)
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
        case .gpsd(var r):
            let read = await r.next(before: deadline)
            self = .gpsd(r)
            return read
        case .geoclue(var r):
            let read = await r.next(before: deadline)
            self = .geoclue(r)
            return read
        case .stationary(var r):
            let read = await r.next(before: deadline)
            self = .stationary(r)
            return read
        }
    }
}
