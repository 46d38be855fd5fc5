import ArgumentParser
import Foundation
import JouleHardware
import JoulePolicy

#if canImport(Glibc)
import Glibc
#endif

/// `joule enforce`: pauses workload classes of a policy file as Low Power Mode and the thermal
/// state change, and resumes them when the state recovers and whenever joule exits.
struct EnforceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enforce",
        abstract: "Pause deferrable work under power and thermal pressure, resume it when the state recovers.",
        discussion: """
            The policy file (YAML) names workload classes and their selectors (cgroup, unit, \
            process, processRegex, commandRegex, pidFile); see examples/enforce-policy.yaml. \
            deferrable classes pause at thermal fair and in Low Power Mode, optional ones at \
            serious, all others at critical. Cgroups and units are frozen with the cgroup v2 \
            freezer; processes are stopped with SIGSTOP through pidfds. One line is printed per \
            action. Everything paused is resumed when joule exits (SIGINT, SIGTERM, SIGHUP, an \
            error or a crash); a journal in $JOULE_STATE_DIR/enforce-paused.json lets the next \
            run (or --resume-all) resume what a SIGKILLed run left paused. With --root, the \
            power and thermal states come from a fixture tree; the workloads are always the \
            live system's processes and cgroups.
            """)

    @Option(name: .long, help: ArgumentHelp("The policy file (YAML).", valueName: "file"))
    var policy: String?

    @Option(name: .long, help: ArgumentHelp("Read power and thermal states from a fixture tree.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print JSON lines.")
    var json = false

    @Option(name: .long, help: ArgumentHelp(
        "Poll the states and re-resolve selectors every S seconds (default: adaptive polling, rescan per the policy).",
        valueName: "s"))
    var interval: Double?

    @Flag(name: .long, help: "Decide and print, but never signal, freeze or write the journal.")
    var dryRun = false

    @Flag(name: .long, help: "Resume everything a previous run left paused (from the journal), then exit.")
    var resumeAll = false

    @Option(name: .long, help: ArgumentHelp(
        "Where the cgroup v2 hierarchy lives (DIR/sys/fs/cgroup), for tests on a fake tree.", valueName: "dir",
        visibility: .hidden))
    var cgroupRoot: String?

    func validate() throws {
        if policy == nil && !resumeAll { throw ValidationError("--policy FILE is required (or --resume-all)") }
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
        if let cgroupRoot, cgroupRoot.isEmpty { throw ValidationError("--cgroup-root needs a directory") }
        if let interval, !(interval >= 0.05 && interval <= 86_400) {
            throw ValidationError("--interval must be between 0.05 and 86400 seconds, not \(interval)")
        }
    }

    func run() async throws {
        // A closed stdout must not kill joule (SIGPIPE) while it holds work paused.
        Syscalls.ignoreSignal(SIGPIPE)
        Syscalls.installPauseGuards()
        let (signals, signalled) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(4))
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { signalled.yield($0) }
        defer { trap.cancel() }

        var loaded = EnforcePolicy(classes: [])
        if let policy {
            do {
                loaded = try EnforcePolicy.load(path: policy)
            } catch {
                Console.error("joule: \(error)")
                throw ExitCode(1)
            }
        }
        guard let stateDirectory = LowPowerOverrideStore.defaultDirectory(
            environment: Syscalls.environment(), isRoot: Syscalls.effectiveUserID() == 0)
        else {
            Console.error("joule: no state directory for the pause journal: set JOULE_STATE_DIR or HOME")
            throw ExitCode(1)
        }
        // One run per state directory: a second would undo the first's pauses.
        var lock: ExclusiveLock?
        if !dryRun {
            let path = stateDirectory + "/enforce.lock"
            do {
                try Syscalls.makeDirectories(stateDirectory, mode: 0o700)
                lock = try ExclusiveLock.acquire(path)
            } catch {
                Console.error("joule: cannot lock \(path): \(error)")
                throw ExitCode(1)
            }
            if lock == nil {
                Console.error("joule: another joule enforce is running with this state directory (\(path) is locked)")
                throw ExitCode(1)
            }
        }
        defer { lock?.release() }
        let safety = SafetyRules.current()
        let owner = (try? ProcFS().stat(safety.pid))?.identity
        let clock = SystemClock()
        let enforcer = Enforcer(
            policy: loaded, resolver: ProcWorkloadResolver(cgroupRoot: cgroupRoot ?? "/", safety: safety),
            controller: PidfdProcessController(cgroupRoot: cgroupRoot ?? "/"),
            journal: PauseJournal(directory: stateDirectory), owner: owner, clock: clock, dryRun: dryRun,
            warn: { Console.error("joule: \($0)") })
        let json = self.json
        let print: @Sendable ([EnforcementAction]) -> Void = { actions in
            for action in actions { Console.out(json ? JSONValue.object(action.json).serialized : Self.describe(action)) }
        }

        do {
            let recovered = try await enforcer.recoverJournal()
            print(recovered)
            if resumeAll {
                if recovered.isEmpty { Console.error("joule: nothing was left paused") }
                return
            }
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }

        let monitor: EnergyMonitor
        do {
            monitor = try makeMonitor(clock: clock)
        } catch {
            throw ExitCode(1)
        }
        let snapshot: StatusReport
        do {
            snapshot = try await monitor.start()
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
        Console.error("joule: enforcing \(loaded.classes.count) class(es); Low Power Mode \(snapshot.lowPowerMode ? "on" : "off"), thermal state \(snapshot.thermalState)\(dryRun ? " (dry run)" : "")")
        print(await enforcer.update(lowPowerMode: snapshot.lowPowerMode, thermalState: snapshot.thermalState))

        let rescanS = interval ?? loaded.rescanIntervalS
        // The rescan timer runs only while something is paused: an idle enforcer wakes for
        // nothing but the state engines' own polls.
        let (pauses, pauseStarted) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        if !(await enforcer.pausedClasses.isEmpty) { pauseStarted.yield() }
        let loop = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await monitor.run { event in
                        print(await enforcer.update(lowPowerMode: event.lowPowerMode, thermalState: event.thermalState))
                        if !(await enforcer.pausedClasses.isEmpty) { pauseStarted.yield() }
                    }
                    pauseStarted.finish()
                }
                group.addTask {
                    var pauseSignals = pauses.makeAsyncIterator()
                    while !Task.isCancelled {
                        if await enforcer.pausedClasses.isEmpty {
                            guard await pauseSignals.next() != nil else { return }
                            continue
                        }
                        do {
                            try await clock.sleep(seconds: rescanS)
                        } catch {
                            return
                        }
                        print(await enforcer.rescan())
                    }
                }
            }
        }
        var received: Int32?
        for await signal in signals {
            received = signal
            break
        }
        loop.cancel()
        await loop.value
        let reason = received.map { "signal:\(Self.signalName($0))" } ?? "exit"
        print(await enforcer.resumeAll(reason: reason))
    }

    private func makeMonitor(clock: SystemClock) throws -> EnergyMonitor {
        var configuration = EnergyMonitor.Configuration()
        configuration.schedule.fixedIntervalS = interval
        let devices = try DeviceRoot(root)
        let source = devices.source
        configuration.procRoot = devices.procRoot
        return EnergyMonitor(
            source: source, overrideStore: LowPowerCommand.store(), clock: clock, configuration: configuration,
            warn: { Console.error("joule: \($0)") })
    }

    /// One readable line per action, with the local time.
    static func describe(_ action: EnforcementAction) -> String {
        let time = Date(timeIntervalSince1970: action.timestamp).formatted(date: .omitted, time: .standard)
        return "\(time) \(action.text)"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "\(signal)"
        }
    }
}
