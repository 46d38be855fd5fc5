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
    private let hooks: [String: HookRunner]

    /// The owner of the config's own regions: never a bus name (those start with ':').
    static let configOwner = "config"

    private init(hub: LocationHub<LocationSource>, service: LocationService, tasks: [Task<Void, Never>], hooks: [String: HookRunner]) {
        self.hub = hub
        self.service = service
        self.tasks = tasks
        self.hooks = hooks
    }

    static func open(
        bus: BusConnection, settings: LocationSettings, regions: [ConfiguredRegion], authorizer: CallerAuthorizer, log: @escaping @Sendable (String) -> Void
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
        var hooks: [String: HookRunner] = [:]
        for configured in regions {
            guard let command = configured.exec else { continue }
            hooks[configured.region.name] = HookRunner(command: command) { log("location: region \(configured.region.name): \($0)") }
        }
        let regionHooks = hooks
        let forward = Task {
            for await delivery in deliveries {
                switch delivery {
                case .trouble(let message): log("location: \(message)")
                case .regionEntered(Self.configOwner, _, let name, let fix), .regionExited(Self.configOwner, _, let name, let fix):
                    // The config's regions: logged, and their hooks run, as the beacon regions' do.
                    let entered = if case .regionEntered = delivery { true } else { false }
                    log("location: region \(name): \(entered ? "entered" : "exited")")
                    let event: LocationEvent = entered ? .regionEnter(region: name, fix: fix) : .regionExit(region: name, fix: fix)
                    if let hook = regionHooks[name], let environment = event.hookEnvironment { hook.run(environment: environment.variables) }
                    continue
                default: break
                }
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
        for configured in regions { _ = await hub.addRegion(owner: configOwner, configured.region) }
        return DaemonLocation(hub: hub, service: service, tasks: [forward, watch], hooks: regionHooks)
    }

    /// Low Power Mode and the thermal state, as the daemon publishes them: updates relax while
    /// either asks for it.
    func follow(_ state: EnergyBusState) async {
        await hub.setPolicy(LocationPolicy(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState))
    }

    func stop() async {
        await hub.shutdown()
        for task in tasks { task.cancel() }
        for hook in hooks.values { await hook.finish() }
    }
}
