import JouleWire
import JouleHardware
import JouleEnergy
import JouleLocation

/// The `org.joule.Location1` object: one-shot fixes, updates and regions for each client, on
/// the daemon's one receiver session (`LocationHub`). Every call is authorised first (polkit
/// `org.joule.Location1.use` on the system bus); signals go to the client that asked alone.
/// The contract is `data/org.joule.Location1.xml`.
package final class LocationService: Sendable {
    /// Who may call: throws AccessDenied saying why.
    package typealias Authorize = @Sendable (_ sender: String) async throws(BusMethodError) -> Void

    private let signals: BusSignalEmitter
    /// The properties, read by the bus thread.
    private let receiver = Locked<(on: Bool, accuracyM: Double?)>((false, nil))

    private init(bus: BusConnection, log: @escaping @Sendable (String) -> Void) {
        signals = BusSignalEmitter(bus: bus, path: LocationBus.objectPath, interface: LocationBus.interfaceName, log: log)
    }

    package static func export<Source>(
        on bus: BusConnection, hub: LocationHub<Source>, authorize: @escaping Authorize, log: @escaping @Sendable (String) -> Void
    ) async throws(BusError) -> LocationService {
        let service = LocationService(bus: bus, log: log)
        try await bus.export(service.interface(hub: hub, authorize: authorize), at: LocationBus.objectPath)
        return service
    }

    /// What the hub produced: a unicast signal to its owner, or the properties.
    package func deliver(_ delivery: LocationHubDelivery) async {
        switch delivery {
        case .location(let owner, let handle, let fix):
            await signals.signal("LocationUpdated", [.uint32(handle), Self.dictionary(fix)], to: owner)
        case .deferred(let owner, let handle, let fixes, let reason):
            await signals.signal(
                "Deferred", [.uint32(handle), .array(elementSignature: "a{sv}", fixes.map(Self.dictionary)), .string(reason.rawValue)],
                to: owner)
        case .regionEntered(let owner, let handle, let region, let fix):
            await signals.signal("RegionEntered", [.uint32(handle), .string(region), Self.dictionary(fix)], to: owner)
        case .regionExited(let owner, let handle, let region, let fix):
            await signals.signal("RegionExited", [.uint32(handle), .string(region), Self.dictionary(fix)], to: owner)
        case .visit(let owner, let handle, let visit):
            var entries: [(String, BusValue)] = [
                ("latitude", .double(visit.latitude)), ("longitude", .double(visit.longitude)), ("radiusM", .double(visit.radiusM)),
                ("arrival", .string(UTCTime.text(visit.arrivalMicros))),
            ]
            if let departure = visit.departureMicros { entries.append(("departure", .string(UTCTime.text(departure)))) }
            await signals.signal(
                "Visit", [.uint32(handle), .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })],
                to: owner)
        case .significantChange(let owner, let handle, let fix):
            await signals.signal("SignificantChange", [.uint32(handle), Self.dictionary(fix)], to: owner)
        case .receiver(let on, let accuracy):
            receiver.withLock { $0 = (on, accuracy) }
            await signals.propertiesChanged(["Receiver", "RequestedAccuracyM"])
        case .trouble: break
        }
    }

    /// A fix as `a{sv}` with the JSON's keys; what the source did not give is left out (D-Bus
    /// has no null).
    static func dictionary(_ fix: LocationFix) -> BusValue {
        var entries: [(String, BusValue)] = [
            ("time", .string(UTCTime.text(fix.timeMicros))), ("latitude", .double(fix.latitude)),
            ("longitude", .double(fix.longitude)), ("source", .string(fix.source)),
        ]
        let optional: [(String, Double?)] = [
            ("horizontalAccuracyM", fix.horizontalAccuracyM), ("altitudeM", fix.altitudeM),
            ("verticalAccuracyM", fix.verticalAccuracyM), ("speedMps", fix.speedMps), ("courseDeg", fix.courseDeg),
        ]
        for (key, value) in optional { if let value { entries.append((key, .double(value))) } }
        return .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// `StartUpdates`' `a{sv}` options: `accuracy`, `distance`, `deferDistance`, `deferTime`
    /// (seconds), all `d`; anything else is refused by name.
    static func updatesOptions(_ value: BusValue?) throws(BusMethodError) -> WatchRequest {
        guard let entries = value?.stringKeyedEntries else { throw .invalidArgs("options must be a{sv}") }
        var options = WatchRequest()
        for (key, value) in entries {
            guard let number = value.doubleValue, number.isFinite else { throw .invalidArgs("options.\(key) must be a finite double (d), not \(value)") }
            switch key {
            case "accuracy":
                guard number > 0 else { throw .invalidArgs("options.accuracy must be above 0 metres, not \(number)") }
                options.accuracyM = number
            case "distance":
                guard number >= 0 else { throw .invalidArgs("options.distance must be 0 or more metres, not \(number)") }
                options.distanceM = number
            case "deferDistance":
                guard number > 0 else { throw .invalidArgs("options.deferDistance must be above 0 metres, not \(number)") }
                options.deferDistanceM = number
            case "deferTime":
                guard number > 0, number <= 86_400 else { throw .invalidArgs("options.deferTime must be above 0 and at most 86400 seconds, not \(number)") }
                options.deferTimeMicros = Int64((number * 1e6).rounded())
            case "pauseWhenStationary", "probe":
                guard number > 0, number <= 86_400 else { throw .invalidArgs("options.\(key) must be above 0 and at most 86400 seconds, not \(number)") }
                let micros = Int64((number * 1e6).rounded())
                if key == "probe" { options.probeMicros = micros } else { options.pauseWhenStationaryMicros = micros }
            default:
                throw .invalidArgs("options.\(key): unknown; the options are accuracy, distance, deferDistance, deferTime, pauseWhenStationary and probe")
            }
        }
        return options
    }

    /// `StartVisits`' options: `radius` (metres, default 100) and `minDwell` (seconds, 300).
    static func visitsRequest(_ value: BusValue?) throws(BusMethodError) -> VisitsRequest {
        guard let entries = value?.stringKeyedEntries else { throw .invalidArgs("options must be a{sv}") }
        var request = VisitsRequest()
        for (key, value) in entries {
            guard let number = value.doubleValue, number.isFinite, number > 0 else {
                throw .invalidArgs("options.\(key) must be a double (d) above 0, not \(value)")
            }
            switch key {
            case "radius": request.radiusM = number
            case "minDwell":
                guard number <= 86_400 else { throw .invalidArgs("options.minDwell must be at most 86400 seconds, not \(number)") }
                request.minDwellMicros = Int64((number * 1e6).rounded())
            default: throw .invalidArgs("options.\(key): unknown; the options are radius and minDwell")
            }
        }
        return request
    }

    private func interface<Source>(hub: LocationHub<Source>, authorize: @escaping Authorize) -> BusInterface {
        let receiver = self.receiver
        return BusInterface(
            name: LocationBus.interfaceName,
            properties: [
                .init("Receiver", "b") { .bool(receiver.withLock { $0.on }) },
                // 0 while the receiver is off: no accuracy is requested.
                .init("RequestedAccuracyM", "d") { .double(receiver.withLock { $0.accuracyM } ?? 0) },
            ],
            methods: [
                .init("RequestLocation", in: "dd", inNames: ["accuracy", "timeout"], out: "a{sv}", outNames: ["fix"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 2, let accuracy = call.arguments[0].doubleValue, let timeout = call.arguments[1].doubleValue,
                          accuracy.isFinite, accuracy > 0, timeout.isFinite, timeout > 0, timeout <= 600
                    else {
                        throw .invalidArgs("accuracy must be above 0 metres and timeout above 0 and at most 600 seconds, not \(call.arguments.map(\.description))")
                    }
                    try await authorize(call.sender)
                    do {
                        let answer = try await hub.requestLocation(
                            owner: call.sender, accuracyM: accuracy, timeoutMicros: Int64((timeout * 1e6).rounded()))
                        guard case .array(let signature, var entries) = Self.dictionary(answer.fix) else { return [] }
                        entries.append(.dictEntry(.string("accuracyMet"), .variant(.bool(answer.accuracyMet))))
                        return [.array(elementSignature: signature, entries)]
                    } catch {
                        throw BusMethodError(name: LocationBus.noFixError, message: "\(error)")
                    }
                },
                .init("StartUpdates", in: "a{sv}", inNames: ["options"], out: "u", outNames: ["handle"]) { call throws(BusMethodError) in
                    let options = try Self.updatesOptions(call.arguments.first)
                    try await authorize(call.sender)
                    return [.uint32(await hub.startUpdates(owner: call.sender, options))]
                },
                .init("AddRegion", in: "sddd", inNames: ["name", "latitude", "longitude", "radius"], out: "u", outNames: ["handle"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 4, let name = call.arguments[0].stringValue, let latitude = call.arguments[1].doubleValue,
                          let longitude = call.arguments[2].doubleValue, let radius = call.arguments[3].doubleValue
                    else { throw .invalidArgs("AddRegion takes (s name, d latitude, d longitude, d radius)") }
                    guard !name.isEmpty, name.utf8.count <= 256 else { throw .invalidArgs("the region's name must be 1 to 256 bytes") }
                    guard latitude.isFinite, abs(latitude) <= 90 else { throw .invalidArgs("latitude must be in -90...90, not \(latitude)") }
                    guard longitude.isFinite, abs(longitude) <= 180 else { throw .invalidArgs("longitude must be in -180...180, not \(longitude)") }
                    guard radius.isFinite, radius > 0, radius <= 20_000_000 else {
                        throw .invalidArgs("radius must be above 0 and at most 20000 km, not \(radius) m")
                    }
                    let region = CircularRegion(name: name, latitude: latitude, longitude: longitude, radiusM: radius)
                    try await authorize(call.sender)
                    return [.uint32(await hub.addRegion(owner: call.sender, region))]
                },
                .init("StartVisits", in: "a{sv}", inNames: ["options"], out: "u", outNames: ["handle"]) { call throws(BusMethodError) in
                    let request = try Self.visitsRequest(call.arguments.first)
                    try await authorize(call.sender)
                    return [.uint32(await hub.startVisits(owner: call.sender, request))]
                },
                .init("StartSignificantChanges", out: "u", outNames: ["handle"]) { call throws(BusMethodError) in
                    try await authorize(call.sender)
                    return [.uint32(await hub.startSignificantChanges(owner: call.sender))]
                },
                .init("Stop", in: "u", inNames: ["handle"]) { call throws(BusMethodError) in
                    guard let handle = call.arguments.first?.uint32Value else { throw .invalidArgs("Stop takes (u handle)") }
                    guard await hub.stop(owner: call.sender, handle: handle) else {
                        throw BusMethodError(name: LocationBus.unknownHandleError, message: "no handle \(handle) of \(call.sender)'s is running")
                    }
                    return []
                },
            ],
            signals: [
                .init("LocationUpdated", "ua{sv}", names: ["handle", "fix"]),
                .init("Deferred", "uaa{sv}s", names: ["handle", "fixes", "reason"]),
                .init("RegionEntered", "usa{sv}", names: ["handle", "region", "fix"]),
                .init("RegionExited", "usa{sv}", names: ["handle", "region", "fix"]),
                .init("Visit", "ua{sv}", names: ["handle", "visit"]),
                .init("SignificantChange", "ua{sv}", names: ["handle", "fix"]),
            ])
    }
}
