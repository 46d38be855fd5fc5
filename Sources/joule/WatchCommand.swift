import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleWire
import JouleHardware
import JouleEnergy
import JouleClient

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
            When joule daemon owns org.joule.Energy1 on the session or system bus, watch follows \
            it instead: the snapshot is the daemon's GetStatus ("source": "daemon") and the events \
            are its PowerStateDidChange and ThermalStateDidChange signals, plus warningLevelChanged \
            from its WarningLevel property, in the same line shapes; the daemon's config decides \
            thresholds and polling. --root, --interval, --low-power-at, --low-power-off-at and \
            --warning-levels configure engines of watch's own, so any of them makes watch read the \
            hardware itself even when the daemon runs. If the daemon leaves the bus, watch exits \
            with status 1. SIGINT or SIGTERM ends the watch with status 0.
            """)

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print JSON lines.")
    var json = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Poll every S seconds instead of adaptively.", valueName: "s"))
    var interval: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Run CMD (with /bin/sh -c) for each event; fields arrive as JOULE_* environment variables.",
        valueName: "cmd"))
    var exec: String?

    // Optional so that a value given can be told from the default: given, watch runs its own engines.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Low Power Mode turns on when the batteries discharge to PCT (default: 20).", valueName: "pct"))
    var lowPowerAt: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Low Power Mode that turned itself on turns off once charging reaches PCT (default: 80).", valueName: "pct"))
    var lowPowerOffAt: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Battery warning levels low,critical,action in percent, only while discharging (default: 20,5,2).",
        valueName: "l,c,a"))
    var warningLevels: Spec<BatteryWarningThresholds>?

    static let defaultLowPowerAt = LowPowerRule.thresholdPercent
    static let defaultLowPowerOffAt = 80.0

    /// Whether an option that only watch's own engines understand was given.
    var configuresEngines: Bool {
        root != nil || interval != nil || lowPowerAt != nil || lowPowerOffAt != nil || warningLevels != nil
    }

    func validate() throws {
        let lowPowerAt = self.lowPowerAt ?? Self.defaultLowPowerAt
        let lowPowerOffAt = self.lowPowerOffAt ?? Self.defaultLowPowerOffAt
        guard (0...100).contains(lowPowerAt), (0...100).contains(lowPowerOffAt), lowPowerOffAt > lowPowerAt else {
            throw ValidationError("--low-power-at and --low-power-off-at must be percentages with off-at above at")
        }
        try warningLevels?.check { _ in "--warning-levels must be three percentages, low ≥ critical ≥ action, like 20,5,2" }
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        if let exec, exec.allSatisfy(\.isWhitespace) { throw ValidationError("--exec needs a command") }
        if let interval, !(interval >= 0.05 && interval <= 86_400) {
            throw ValidationError("--interval must be between 0.05 and 86400 seconds, not \(interval)")
        }
    }

    func run() async throws {
        let environment = CurrentProcess.environment()
        try await DaemonClient.withDaemonOrLocal(environment: environment, askingDaemon: !configuresEngines) { daemon in
            try await follow(daemon) ? () : nil
        } local: {
            try await watchHardware()
        }
    }

    /// Runs engines of watch's own on the devices under `root`, or the live system's.
    private func watchHardware() async throws {
        var configuration = EnergyMonitor.Configuration()
        configuration.schedule.fixedInterval = interval.map { .seconds($0) }
        configuration.power.lowPercent = lowPowerAt ?? Self.defaultLowPowerAt
        configuration.power.restorePercent = lowPowerOffAt ?? Self.defaultLowPowerOffAt
        if let levels = warningLevels?.value {
            configuration.power.warningLowPercent = levels.low
            configuration.power.warningCriticalPercent = levels.critical
            configuration.power.warningActionPercent = levels.action
        }
        let devices = try DeviceRoot(root)
        let source = devices.source
        configuration.procRoot = devices.procRoot

        let clock = SystemClock()
        let monitor: EnergyMonitor
        let snapshot: StatusReport
        do {
            monitor = try EnergyMonitor(
                source: source, overrideStore: LowPowerCommand.store(), clock: clock, configuration: configuration,
                warn: { Console.error("joule: \($0)") })
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

    /// Follows joule daemon: its snapshot, then its signals. False (after a note) when the
    /// daemon cannot be read, so that watch reads the hardware itself.
    private func follow(_ daemon: DaemonClient) async throws -> Bool {
        let clock = SystemClock()
        let events: AsyncStream<DaemonClient.Event>
        let snapshot: JSONValue
        let report: StatusReport
        let state: EnergyBusState
        do {
            // Subscribed before the snapshot is taken, so no change falls between the two.
            events = try await daemon.events(clock: clock)
            snapshot = try JSONParser.parse(try await daemon.status())
            report = try StatusReport(json: snapshot)
            state = try await daemon.state()
        } catch {
            Console.error("joule: joule daemon: \(error); reading the hardware directly")
            return false
        }
        let hooks = exec.map { HookRunner(command: $0, report: { Console.error("joule: \($0)") }) }
        let json = self.json
        let bus = daemon.bus
        // The trap is set before the snapshot is printed, as above.
        let left = try await SignalTrap.cancellingOnSignal {
            if json {
                var line: JSONObject = ["timestamp": .from(clock.now(), places: 3), "event": .string("snapshot")]
                if case .object(let object) = snapshot { for (key, value) in object.entries { line[key] = value } }
                Console.out(JSONValue.object(line).serialized)
            } else {
                Console.out(StatusTable.render(report, daemon: .init(state: state, bus: bus)))
            }
            for await event in events {
                guard case .energy(let timed) = event else { continue }
                Console.out(json ? JSONValue.object(timed.json).serialized : Self.describe(timed))
                hooks?.run(environment: timed.environment)
            }
            return !Task.isCancelled
        }
        await hooks?.finish()
        if left {
            Console.error("joule: joule daemon left the bus")
            throw ExitCode(1)
        }
        return true
    }

    /// One readable line per event.
    static func describe(_ event: TimedEvent) -> String {
        let time = ClockTime.text(event.timestamp)
        let fields = event.event.fields.entries.map { "\($0.0)=\(HookEnvironment.plain($0.1))" }.joined(separator: " ")
        return "\(time) \(event.event.name) \(fields)"
    }
}
