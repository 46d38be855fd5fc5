import ArgumentParser
import JouleEnergy
import JouleHardware
import JouleClient
import JouleLocation

/// `--root DIR` for `location watch|visits|significant`: where Low Power Mode and the thermal
/// state come from, which relax their requests (`LocationPolicy`).
struct LocationPolicyOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Read Low Power Mode and the thermal state from a fixture tree instead of joule daemon or the live system.",
            valueName: "dir"))
    var root: String?

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
    }

    /// The state, read once as the session starts (a change during it does not alter the
    /// session): joule daemon's properties when it owns org.joule.Energy1 and no --root is
    /// given, else the devices under --root or the live system's with the user's Low Power
    /// Mode override, as `joule status` reads them. A --root that is not a machine's tree exits
    /// 2; a live system that cannot be read leaves the requests as given, with a warning.
    func read() async throws -> LocationPolicy {
        try await DaemonClient.withDaemonOrLocal(environment: CurrentProcess.environment(), askingDaemon: root == nil) { daemon in
            do {
                let state = try await daemon.state()
                return LocationPolicy(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState)
            } catch {
                Console.error("joule location: joule daemon: \(error); reading the hardware directly")
                return nil
            }
        } local: {
            let devices = try DeviceRoot(root)
            let override = LowPowerCommand.store().map { $0.load() } ?? .auto
            do {
                let report = try StatusReport.collect(source: devices.source, procRoot: devices.procRoot, lowPowerOverride: override)
                return LocationPolicy(lowPowerMode: report.lowPowerMode, thermalState: report.thermalState)
            } catch {
                guard !devices.isFixture else { throw JouleExit.input("cannot read root \(root ?? ""): \(error)", command: "location") }
                Console.error("joule location: cannot read Low Power Mode and the thermal state (\(error)); requests as given")
                return .normal
            }
        }
    }

    /// For a live session: follows joule daemon's Low Power Mode and thermal state into `feed`
    /// (its PropertiesChanged signals), until cancelled or the daemon leaves. nil when there is
    /// no daemon to follow (or --root names a fixture, which does not change).
    func follow(into feed: LocationPolicyFeed) async -> Task<Void, Never>? {
        guard root == nil, let daemon = await DaemonClient.find(environment: CurrentProcess.environment()) else { return nil }
        guard let events = try? await daemon.events() else {
            await daemon.close()
            return nil
        }
        return Task {
            for await event in events {
                if case .state(let state) = event {
                    feed.set(LocationPolicy(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState))
                }
            }
            await daemon.close()
        }
    }
}
