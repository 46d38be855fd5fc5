import JouleWire
import JouleHardware
import JouleEnergy
import JouleLocation

/// The daemon's location: one `LocationHub` over the configured source, the
/// `org.joule.Location1` object, and clients that leave the bus losing their handles (the
/// receiver goes off when nobody needs it). The source opens when a handle first needs a fix.
final class DaemonLocation: Sendable {
    let hub: LocationHub<LocationSource>
    let service: LocationService
    private let tasks: [Task<Void, Never>]

    private init(hub: LocationHub<LocationSource>, service: LocationService, tasks: [Task<Void, Never>]) {
        self.hub = hub
        self.service = service
        self.tasks = tasks
    }

    static func open(
        bus: BusConnection, settings: LocationSettings, authorizer: CallerAuthorizer, log: @escaping @Sendable (String) -> Void
    ) async throws(BusError) -> DaemonLocation {
        // Deliveries keep their order on the way to the bus: one stream, one consumer.
        let (deliveries, sink) = AsyncStream.makeStream(of: LocationHubDelivery.self)
        let hub = LocationHub<LocationSource>(
            sampling: SamplingRequest(accuracyM: settings.accuracyM, maxSpeedMps: settings.maxSpeedMps),
            open: { () async throws(LocationError) in
                // A fixed position is a receiver on the daemon's wall clock: a fix a second while on.
                if case .fixed(let latitude, let longitude, let accuracy) = settings.source {
                    return .stationary(StationaryReceiver(latitude: latitude, longitude: longitude, accuracyM: accuracy))
                }
                return try await LocationSource.open(
                    settings.source, ttffMicros: 0, now: WallClock.micros(), gpsd: settings.gpsd, accuracyM: settings.accuracyM)
            },
            deliver: { sink.yield($0) })
        let service = try await LocationService.export(
            on: bus, hub: hub, authorize: { sender throws(BusMethodError) in try await authorizer.authorize(sender: sender) }, log: log)
        let forward = Task {
            for await delivery in deliveries {
                if case .trouble(let message) = delivery { log("location: \(message)") }
                await service.deliver(delivery)
            }
        }
        // A client that leaves the bus (or crashes) ends its handles.
        let departures = try await bus.signals(
            matching: "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
        let watch = Task {
            for await message in departures {
                guard message.arguments.count == 3, let name = message.arguments[0].stringValue, name.hasPrefix(":"),
                      message.arguments[2].stringValue == "" else { continue }
                if await hub.handleCount(owner: name) > 0 {
                    log("location: \(name) left the bus; its handles end")
                    await hub.stop(owner: name)
                }
            }
        }
        await hub.start()
        return DaemonLocation(hub: hub, service: service, tasks: [forward, watch])
    }

    func stop() async {
        await hub.shutdown()
        for task in tasks { task.cancel() }
    }
}
