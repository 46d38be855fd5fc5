import ArgumentParser
import Foundation
import JouleHardware
import JoulePolicy

/// `joule watch`: a snapshot, then one line per change of power or thermal state.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow Low Power Mode, thermal state, batteries and line power as they change.",
        discussion: """
            The first line is a snapshot (the content of `joule status --json`); each later line is \
            one event: powerStateDidChange, thermalStateDidChange, batteryChanged, lineChanged, \
            powerSourceAdded, powerSourceRemoved or warningLevelChanged. Live, uevents from libudev \
            trigger reads at once; polling is adaptive (slow when stable, fast near thresholds and \
            after line changes). With --root the same engines poll the fixture tree. \
            SIGINT or SIGTERM ends the watch with status 0.
            """)

    @Option(name: .long, help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print JSON lines.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Poll every S seconds instead of adaptively.", valueName: "s"))
    var interval: Double?

    @Option(name: .long, help: ArgumentHelp(
        "Run CMD (with /bin/sh -c) for each event; fields arrive as JOULE_* environment variables.",
        valueName: "cmd"))
    var exec: String?

    @Option(name: .long, help: ArgumentHelp("Low Power Mode turns on when the batteries discharge to PCT.", valueName: "pct"))
    var lowPowerAt: Double = LowPowerRule.thresholdPercent

    @Option(name: .long, help: ArgumentHelp(
        "Low Power Mode that turned itself on turns off once charging reaches PCT.", valueName: "pct"))
    var lowPowerOffAt = 80.0

    @Option(name: .long, help: ArgumentHelp(
        "Battery warning levels low,critical,action in percent, only while discharging.", valueName: "l,c,a"))
    var warningLevels = Spec<BatteryWarningThresholds>(argument: "20,5,2")

    func validate() throws {
        guard (0...100).contains(lowPowerAt), (0...100).contains(lowPowerOffAt), lowPowerOffAt > lowPowerAt else {
            throw ValidationError("--low-power-at and --low-power-off-at must be percentages with off-at above at")
        }
        try warningLevels.check { _ in "--warning-levels must be three percentages, low ≥ critical ≥ action, like 20,5,2" }
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        if let interval, !(interval >= 0.05 && interval <= 86_400) {
            throw ValidationError("--interval must be between 0.05 and 86400 seconds, not \(interval)")
        }
    }

    func run() async throws {
        var configuration = EnergyMonitor.Configuration()
        configuration.schedule.fixedInterval = interval.map { .seconds($0) }
        configuration.power.lowPercent = lowPowerAt
        configuration.power.restorePercent = lowPowerOffAt
        if let levels = warningLevels.value {
            configuration.power.warningLowPercent = levels.low
            configuration.power.warningCriticalPercent = levels.critical
            configuration.power.warningActionPercent = levels.action
        }
        let devices = try DeviceRoot(root)
        let source = devices.source
        configuration.procRoot = devices.procRoot

        let clock = SystemClock()
        let monitor = EnergyMonitor(
            source: source, overrideStore: LowPowerCommand.store(), clock: clock, configuration: configuration,
            warn: { Console.error("joule: \($0)") })
        let snapshot: StatusReport
        do {
            snapshot = try await monitor.start()
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
        let hooks = exec.map { HookRunner(command: $0, report: { Console.error("joule: \($0)") }) }
        let json = self.json
        // The trap is set before the snapshot is printed: whoever reads that line may signal us.
        try await SignalTrap.cancellingOnSignal {
            if json {
                var line: JSONObject = ["timestamp": .from(clock.now(), places: 3), "event": .string("snapshot")]
                for (key, value) in snapshot.json.entries { line[key] = value }
                Console.out(JSONValue.object(line).serialized)
            } else {
                Console.out(StatusTable.render(snapshot))
            }
            await monitor.run { event in
                Console.out(json ? JSONValue.object(event.json).serialized : Self.describe(event))
                hooks?.run(environment: event.environment)
            }
        }
        await hooks?.finish()
    }

    /// One readable line per event.
    static func describe(_ event: TimedEvent) -> String {
        let time = Date(timeIntervalSince1970: event.timestamp).formatted(date: .omitted, time: .standard)
        let fields = event.event.fields.entries.map { "\($0.0)=\(HookEnvironment.plain($0.1))" }.joined(separator: " ")
        return "\(time) \(event.event.name) \(fields)"
    }
}
