import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleHardware
import JouleEnergy
import JouleWorkloads

extension CPUMonitorAction: ExpressibleByArgument {}

/// `joule cpu-monitor`: iOS's CPU monitor for Linux processes.
struct CPUMonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cpu-monitor",
        abstract: "Kill, throttle or report processes that exceed a CPU budget, like iOS's CPU monitor.",
        discussion: """
            100% is one full core. A watched process may spend LIMIT% x WINDOW seconds of CPU time within \
            any trailing WINDOW; as soon as it spends more, the action runs and a report is written \
            (EXC_RESOURCE, CPU_FATAL when killed, CPU otherwise). Selectors of one kind are alternatives; \
            different kinds must all match. pid 1, the monitor, its parent, kernel threads and (unless \
            root) other users' processes are never touched. Stopped processes are always continued on exit.
            """)

    @Option(parsing: .unconditional, help: "CPU limit in percent of one core.")
    var limit: Double = 80

    @Option(parsing: .unconditional, help: "Trailing window in seconds.")
    var window: Double = 60

    @Option(parsing: .unconditional, help: "What to do on a violation: kill, throttle or report.")
    var action: CPUMonitorAction = .kill

    @Option(parsing: .unconditional, help: ArgumentHelp("Directory for reports (default: $JOULE_STATE_DIR/reports).", valueName: "dir"))
    var reports: String?

    @Option(parsing: .unconditional, help: "Sampling interval in seconds (default: a tenth of the window, at most 1).")
    var interval: Double?

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Flag(help: "Decide and write reports, but never signal a process or change a cgroup.")
    var dryRun = false

    @Option(name: .customLong("pid"), parsing: .unconditionalSingleValue, help: ArgumentHelp("Watch this process (repeatable).", valueName: "pid"))
    var pids: [Int32] = []

    @Option(name: .customLong("match"), parsing: .unconditionalSingleValue, help: ArgumentHelp("Watch processes whose name or command line matches (repeatable).", valueName: "regex"))
    var patterns: [String] = []

    @Option(name: .customLong("cgroup"), parsing: .unconditionalSingleValue, help: ArgumentHelp("Watch processes in this cgroup v2 path or below (repeatable).", valueName: "path"))
    var cgroups: [String] = []

    @Option(name: .customLong("uid"), parsing: .unconditionalSingleValue, help: ArgumentHelp("Watch processes of this user ID (repeatable).", valueName: "uid"))
    var uids: [UInt32] = []

    func monitorConfiguration() throws(CPUMonitorError) -> CPUMonitorConfiguration {
        var configuration = try CPUMonitorConfiguration(
            limitPercent: limit, windowSeconds: window, intervalSeconds: interval, durationSeconds: duration)
        configuration.action = action
        configuration.dryRun = dryRun
        configuration.selectors = ProcessSelectors(pids: Set(pids), patterns: patterns, cgroups: cgroups, uids: Set(uids))
        return configuration
    }

    func validate() throws {
        do {
            try monitorConfiguration().validate()
        } catch {
            throw ValidationError(error.description)
        }
        for pattern in patterns {
            do { _ = try Regex(pattern) } catch { throw ValidationError("--match \(pattern): not a valid regular expression: \(error)") }
        }
    }

    func run() async throws {
        // What the user named is checked before anything is watched, stopped or written.
        let selectors = ProcessSelectors(pids: Set(pids), patterns: patterns, cgroups: cgroups, uids: Set(uids))
        if let problem = selectors.protectedPIDs(procfs: ProcFS(), safety: .current()).first {
            throw JouleExit.input(problem, command: "cpu-monitor")
        }
        if let problem = selectors.missing(procfs: ProcFS()).first {
            throw JouleExit.input(problem, command: "cpu-monitor")
        }
        guard let directory = reports ?? ReportStore.defaultDirectory() else {
            throw JouleExit.system(StateDirectory.missingMessage, command: "cpu-monitor")
        }
        do {
            try FileSystem.makeDirectories(directory)
        } catch {
            let message = "\(reports == nil ? "" : "--reports ")\(directory): cannot make the report directory: \(error.errno.map { "\($0)" } ?? "\(error)")"
            throw reports == nil ? JouleExit.system(message, command: "cpu-monitor") : JouleExit.input(message, command: "cpu-monitor")
        }
        // Before anything can be stopped: crash handlers that continue stopped processes, and
        // SIGINT/SIGTERM/SIGHUP turned into a clean shutdown.
        PidfdProcessController.installCrashGuards()
        let signals = TerminationSignals.stream()
        let configuration: CPUMonitorConfiguration
        do { configuration = try monitorConfiguration() } catch { throw ValidationError(error.description) }
        let monitor: CPUMonitor<PidfdProcessController>
        do {
            monitor = try CPUMonitor(
                configuration: configuration, clock: SystemClock(), controller: PidfdProcessController(),
                store: ReportStore(directory: directory))
        } catch {
            throw JouleExit.input("\(error)", command: "cpu-monitor")
        }
        Console.out(
            "cpu-monitor: limit \(Self.number(configuration.limitPercent))% of one core over \(Self.number(configuration.window.inSeconds)) s, "
                + "action \(configuration.action.rawValue)\(configuration.dryRun ? " (dry run)" : ""), "
                + "sampling every \(Self.number(configuration.effectiveInterval.inSeconds)) s, reports in \(directory)")
        do {
            try await monitor.run(until: signals) { signal in
                Console.error("cpu-monitor: \(signal), continuing stopped processes and exiting")
            } onEvent: { event in
                Self.print(event)
            }
        } catch {
            throw JouleExit.system("\(error)", command: "cpu-monitor")
        }
    }

    static func number(_ value: Double) -> String { ResourceReport.number(value) }

    static func print(_ event: CPUMonitorEvent) {
        switch event {
        case .watching(let facts):
            Console.out("watching \(facts.name) [\(facts.pid)]")
        case .protected(let facts, let reason):
            Console.out("not watching \(facts.name) [\(facts.pid)]: \(reason.monitorDescription)")
        case .violation(let report, let path):
            Console.out(
                "\(report.exceptionType) \(report.exceptionSubtype) \(report.processName) [\(report.pid)]: "
                    + "\(report.exceptionMessage); \(report.actionTaken); report \(path ?? "not written")")
        case .exited(let identity, let name):
            Console.out("\(name) [\(identity.pid)] exited")
        case .throttling(let message), .failure(let message):
            Console.error("cpu-monitor: \(message)")
        }
    }
}
