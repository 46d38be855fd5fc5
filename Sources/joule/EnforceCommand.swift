import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

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

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The policy file (YAML).", valueName: "file"))
    var policy: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read power and thermal states from a fixture tree.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print JSON lines.")
    var json = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Poll the states and re-resolve selectors every S seconds (default: adaptive polling, rescan per the policy).",
        valueName: "s"))
    var interval: Double?

    @Flag(name: .long, help: "Decide and print, but never signal, freeze or write the journal.")
    var dryRun = false

    @Flag(name: .long, help: "Resume everything a previous run left paused (from the journal), then exit.")
    var resumeAll = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
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
        // The handlers are in place before anything is paused: a signal at any moment ends the
        // run through the session's final resume, never by default action.
        let (signals, signalled) = AsyncStream.makeStream(of: TerminationSignal.self)
        let trap = SignalTrap(TerminationSignal.allCases) { signalled.yield($0) }
        defer { trap.cancel() }
        var loaded = EnforcePolicy(classes: [])
        if let policy {
            do {
                loaded = try EnforcePolicy.load(path: policy)
            } catch {
                throw JouleExit.input("\(error)")
            }
        }
        guard let stateDirectory = StateDirectory.current() else {
            throw JouleExit.system("no state directory for the pause journal: set JOULE_STATE_DIR or HOME")
        }
        var options = EnforcementSession.Options(policy: loaded, stateDirectory: stateDirectory)
        options.dryRun = dryRun
        options.interval = interval.map { .seconds($0) }
        options.cgroupRoot = cgroupRoot ?? "/"
        let session = EnforcementSession(options: options)
        let json = self.json
        let emit: @Sendable (EnforcementSession.Output) -> Void = { output in
            switch output {
            case .action(let action):
                Console.out(json ? JSONValue.object(action.json).serialized : Self.describe(action))
            case .started(let classes, let lowPowerMode, let thermalState, let dryRun):
                Console.error("joule: enforcing \(classes) class(es); Low Power Mode \(lowPowerMode ? "on" : "off"), thermal state \(thermalState)\(dryRun ? " (dry run)" : "")")
            case .nothingLeftPaused:
                Console.error("joule: nothing was left paused")
            case .warning(let text):
                Console.error("joule: \(text)")
            }
        }
        do {
            if resumeAll {
                try await session.resumeLeftovers(clock: SystemClock(), emit: emit)
            } else {
                let devices = try DeviceRoot(root)
                try await session.run(
                    source: devices.source, procRoot: devices.procRoot, overrideStore: LowPowerCommand.store(),
                    clock: SystemClock(), stop: signals, emit: emit)
            }
        } catch let failure as EnforcementSession.Failure {
            throw JouleExit.system("\(failure)")
        }
    }

    /// One readable line per action, with the local time.
    static func describe(_ action: EnforcementAction) -> String {
        let time = ClockTime.text(action.timestamp)
        return "\(time) \(action.text)"
    }
}
