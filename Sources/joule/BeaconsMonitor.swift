import ArgumentParser
import JouleHardware
import JouleWorkloads

/// `joule beacons monitor --region SPEC... [--exit-timeout S] [--exec CMD] [--json]`.
struct BeaconsMonitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Report entering and leaving beacon regions, scanning at a low duty cycle that backs off while nothing changes.")

    @OptionGroup var source: BeaconSourceOptions
    @OptionGroup var regionOptions: RegionOptions

    @Option(name: .customLong("exit-timeout"), parsing: .unconditional, help: "Seconds of listening without a matching advert before a region is left.")
    var exitTimeout: Double = 10

    @Option(parsing: .unconditional, help: "Shell command run on each event, with JOULE_EVENT, JOULE_REGION, JOULE_UUID, JOULE_MAJOR, JOULE_MINOR and JOULE_TIMESTAMP set.")
    var exec: String?

    @Flag(name: .customLong("no-auto-pause"), help: "Keep scanning at the monitoring duty cycle instead of backing off while nothing changes.")
    var noAutoPause = false

    @Flag(help: "One JSON line per event.")
    var json = false

    func validate() throws {
        guard exitTimeout > 0, exitTimeout.isFinite else { throw ValidationError("--exit-timeout must be a positive number of seconds") }
        if let exec, exec.allSatisfy(\.isWhitespace) { throw ValidationError("--exec needs a command") }
    }

    func run() async throws {
        var configuration = BeaconSession.Configuration(mode: .monitor, regions: regionOptions.regions)
        configuration.exitTimeout = .seconds(clamping: exitTimeout)
        configuration.controller.autoPause = !noAutoPause
        if let duty = source.scanDuty { configuration.controller.lowDuty = duty }
        configuration.alwaysListening = source.replay != nil
        let output = StandardOutput()
        _ = try await BeaconRun.run(configuration: configuration, source: source) { event in
            guard case .region(let region) = event else { return }
            if json {
                output.buffer.appendLine(region.jsonObject)
            } else {
                output.buffer.append(
                    "\(BeaconText.time(region.timestampMicros)) \(region.kind.rawValue) \(region.region.name) (\(region.region.identifierText))\n")
            }
            if let exec {
                output.flush()
                Self.runHook(exec, region)
            }
        } flush: {
            output.flush()
        }
    }

    /// Runs the user's command and waits for it, so hooks see events in order.
    static func runHook(_ command: String, _ event: RegionEvent) {
        switch HookRunner.run(command: command, environment: event.hookEnvironment.variables) {
        case .success(0): break
        case .success(let status): Console.error("warning: --exec command exited with status \(status)")
        case .failure(let error): Console.error("warning: --exec command could not start: \(error)")
        }
    }
}
