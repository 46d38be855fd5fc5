import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

/// The config's optional parts, run inside the daemon and driven by its one energy engine:
/// the enforce policy, the `cpuMonitor` watches and the beacon region monitors with their
/// hooks. Each runs as a task; `stop()` ends them all the way their commands end on SIGTERM
/// (everything paused resumed, every stopped process continued, the radio off).
package actor DaemonWorkloads {
    private let stateDirectory: StateDirectory?
    private let log: @Sendable (String) -> Void
    private var tasks: [Task<Void, Never>] = []
    private var enforceStates: AsyncStream<EnforcementSession.States>.Continuation?
    private var enforceStop: AsyncStream<TerminationSignal>.Continuation?
    private var scanPolicies: [ScanPolicySwitch] = []
    private var running: DaemonConfiguration?
    private let tally = WorkloadTally()
    private var gauges: [BeaconRegionGauges] = []
    private var enforcing = false
    private var watching = false

    /// Each CPU-monitor violation, with its report's path when written (for `CPUMonitorViolation`).
    private let violated: (@Sendable (ResourceReport, String?) async -> Void)?

    package init(
        stateDirectory: StateDirectory?, log: @escaping @Sendable (String) -> Void,
        violated: (@Sendable (ResourceReport, String?) async -> Void)? = nil
    ) {
        self.violated = violated
        self.stateDirectory = stateDirectory
        self.log = log
    }

    /// How many tasks run (enforce, watches, monitors).
    package var count: Int { tasks.count }

    /// Starts what `configuration` asks for, from the engine's current states; restarts
    /// everything when the parts differ from those running (a SIGHUP reload).
    package func start(_ configuration: DaemonConfiguration, states: EnforcementSession.States) async {
        if let running, running.enforce == configuration.enforce, running.cpuMonitor == configuration.cpuMonitor,
           running.beacons == configuration.beacons
        {
            return
        }
        await stop()
        running = configuration
        if configuration.enforce != nil || !configuration.cpuMonitor.isEmpty {
            // A crash must still continue and thaw what the daemon stopped or froze.
            PidfdProcessController.installCrashGuards()
        }
        if let policy = configuration.enforce { startEnforce(policy, states: states) }
        for (index, watch) in configuration.cpuMonitor.enumerated() { startWatch(watch, index: index) }
        for (index, monitor) in configuration.beacons.enumerated() { startBeacons(monitor, index: index, states: states) }
    }

    /// The engine's states changed.
    package func update(_ states: EnforcementSession.States) {
        enforceStates?.yield(states)
        let input = ScanPolicyInput.forEnergy(lowPowerMode: states.lowPowerMode, thermalState: states.thermalState)
        for policy in scanPolicies { policy.set(input) }
    }

    /// Ends every part and waits until each has undone what it did.
    package func stop() async {
        enforceStop?.finish()
        enforceStates?.finish()
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        tasks = []
        enforceStop = nil
        enforceStates = nil
        scanPolicies = []
        running = nil
        tally.enforceStopped()
        gauges = []
        enforcing = false
        watching = false
    }

    /// For `/metrics`: the paused classes (nil without an enforce run), the violations by
    /// action (nil without a watch), and every monitored region once by name (a name in two
    /// monitors is inside if either says so, at the stronger RSSI).
    func metrics(now: Int64) -> (pausedClasses: Int?, violations: [CPUMonitorAction: Int]?, beacons: [MetricsSample.BeaconRegionReading]) {
        var beacons: [MetricsSample.BeaconRegionReading] = []
        for reading in gauges.flatMap({ $0.readings(now: now) }) {
            guard let index = beacons.firstIndex(where: { $0.name == reading.name }) else {
                beacons.append(reading)
                continue
            }
            beacons[index].inside = beacons[index].inside || reading.inside
            beacons[index].rssiDBm = [beacons[index].rssiDBm, reading.rssiDBm].compactMap { $0 }.max()
        }
        return (enforcing ? tally.pausedClasses : nil, watching ? tally.violations : nil, beacons)
    }

    private func startEnforce(_ policy: EnforcePolicy, states: EnforcementSession.States) {
        guard let stateDirectory else {
            log("enforce: \(StateDirectory.missingMessage); not enforcing")
            return
        }
        let (stream, continuation) = AsyncStream.makeStream(of: EnforcementSession.States.self, bufferingPolicy: .bufferingNewest(8))
        let (stop, stopper) = AsyncStream.makeStream(of: TerminationSignal.self)
        enforceStates = continuation
        enforceStop = stopper
        let session = EnforcementSession(options: EnforcementSession.Options(policy: policy, stateDirectory: stateDirectory))
        let log = self.log
        let tally = self.tally
        enforcing = true
        tasks.append(Task {
            do {
                try await session.run(initial: states, states: stream, clock: SystemClock(), stop: stop) { output in
                    switch output {
                    case .action(let action):
                        tally.record(action)
                        log("enforce: \(JSONValue.object(action.json).serialized)")
                    case .started(let classes, _, _, _): log("enforce: \(classes) class(es)")
                    case .nothingLeftPaused: break
                    case .warning(let text): log("enforce: \(text)")
                    }
                }
            } catch {
                log("enforce: \(error)")
            }
        })
    }

    private func startWatch(_ watch: DaemonConfiguration.CPUWatch, index: Int) {
        guard let directory = watch.reports ?? stateDirectory?.reports else {
            log("cpuMonitor[\(index)]: \(StateDirectory.missingMessage); not watching")
            return
        }
        let monitor: CPUMonitor<PidfdProcessController>
        do {
            monitor = try CPUMonitor(
                configuration: watch.configuration, clock: SystemClock(), controller: PidfdProcessController(),
                store: ReportStore(directory: directory))
        } catch {
            log("cpuMonitor[\(index)]: \(error)")
            return
        }
        let log = self.log
        let tally = self.tally
        let violated = self.violated
        watching = true
        tasks.append(Task {
            do {
                try await monitor.run { event in
                    if case .violation(let report, let path) = event {
                        tally.recordViolation(report)
                        if let violated { Task { await violated(report, path) } }
                    }
                    if let line = Self.describe(event) { log("cpuMonitor[\(index)]: \(line)") }
                }
            } catch {
                log("cpuMonitor[\(index)]: \(error)")
            }
        })
    }

    private func startBeacons(_ monitor: DaemonConfiguration.BeaconMonitor, index: Int, states: EnforcementSession.States) {
        var configuration = BeaconSession.Configuration(mode: .monitor, regions: monitor.regions)
        configuration.exitTimeout = monitor.exitTimeout
        let policy = ScanPolicySwitch(.forEnergy(lowPowerMode: states.lowPowerMode, thermalState: states.thermalState))
        scanPolicies.append(policy)
        let gauges = BeaconRegionGauges(regions: monitor.regions)
        self.gauges.append(gauges)
        let log = self.log
        tasks.append(Task {
            let opened: OpenedBeaconTransport
            do {
                opened = try await BeaconTransportChooser.open(monitor.transport, adapter: monitor.adapter)
            } catch {
                log("beacons[\(index)]: \(error)")
                return
            }
            let transport = opened.transport
            if let warning = opened.warning { log("beacons[\(index)]: warning: \(warning)") }
            func report(_ event: RegionEvent) {
                log("beacons[\(index)]: \(JSONValue.object(event.jsonObject).serialized)")
                guard let command = monitor.exec else { return }
                // Hooks run in order, as `beacons monitor --exec` runs them; the config is
                // root's (or the session user's), so they run as the daemon's own user, and
                // as root with a clean environment and a script no other user can change.
                let owner = UserAccount.acting(for: CurrentProcess.effectiveUserID)
                switch HookRunner.run(command: command, environment: event.hookEnvironment.variables, as: owner) {
                case .success(0): break
                case .success(let status): log("beacons[\(index)]: exec exited with status \(status)")
                case .failure(let error): log("beacons[\(index)]: exec could not start: \(error)")
                }
            }
            let prepared = await BlueZRegionMonitor.prepare(on: transport, regions: monitor.regions, exitTimeout: monitor.exitTimeout)
            log("beacons[\(index)]: \(opened.description), mechanism \(prepared.mechanism.rawValue)")
            if let note = prepared.note { log("beacons[\(index)]: \(note)") }
            do {
                if let offloaded = prepared.monitor {
                    // The session's runner feeds the gauges itself; here they learn only of events.
                    try await offloaded.run { event in
                        gauges.record(event)
                        report(event)
                    }
                } else {
                    var configuration = configuration
                    configuration.listensWhileOn = opened.kind == .bluez
                    var runner = BeaconSessionRunner(
                        configuration: configuration, start: WallClock.micros(), commander: ScanCommander(transport: transport))
                    runner.policy = policy
                    runner.gauges = gauges
                    try await runner.run { output in
                        guard case .region(let event) = output else { return }
                        report(event)
                    }
                }
            } catch {
                log("beacons[\(index)]: \(error)")
            }
            await transport.close()
        })
    }

    /// One log line per monitor event worth a line.
    static func describe(_ event: CPUMonitorEvent) -> String? {
        switch event {
        case .watching(let facts): "watching \(facts.name) [\(facts.pid)]"
        case .protected: nil
        case .violation(let report, let path):
            "\(report.exceptionType) \(report.exceptionSubtype) \(report.processName) [\(report.pid)]: "
                + "\(report.exceptionMessage); \(report.actionTaken); report \(path ?? "not written")"
        case .exited(let identity, let name): "\(name) [\(identity.pid)] exited"
        case .throttling(let message), .failure(let message): message
        }
    }
}
