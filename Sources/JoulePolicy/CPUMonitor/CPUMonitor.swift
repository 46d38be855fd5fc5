import Foundation
import JouleHardware

/// XNU's CPU monitor on Linux. 100 % is one core; a watched process may spend
/// `limit × window` seconds of CPU time within any trailing window, and is handled (killed,
/// throttled or reported) as soon as the CPU time it spent since the oldest sample still
/// inside the window exceeds that budget.
///
/// The engine takes a root (so fixture /proc trees drive it), a clock (so tests step time),
/// and a process controller (pidfds live, a recorder in tests). `step()` samples once;
/// `advanceThrottle()` runs the SIGSTOP/SIGCONT duty cycle; `run()` loops both until the
/// duration ends or the task is cancelled, and always continues every process it stopped
/// and restores every cgroup limit it changed on the way out.
public actor CPUMonitor<Controller: ProcessController> {
    public let configuration: CPUMonitorConfiguration
    public let root: String
    private let clock: any JouleClock
    private let controller: Controller
    private let procfs: ProcFS
    private let sampler: ProcessSampler
    private let monitor: MonitorIdentity
    private let store: ReportStore?
    private let system: SystemIdentity
    private let patterns: [Regex<AnyRegexOutput>]

    private enum Verdict { case ignored, protected, watched, finished }

    private struct Watch {
        var facts: ProcessFacts
        var history = CPUUsageHistory()
        var threadHistories: [ProcessIdentity: CPUUsageHistory] = [:]
        var latestThreads: [ProcessStat] = []
        /// Set once a cgroup limit or a duty cycle holds the process: reported once, not again.
        var held = false
    }

    private struct Throttle {
        var handle: Controller.Handle
        var duty: Double
        var stopped = false
        var slotStart: Double
        var stopAt: Double?
        var lastNanoseconds: UInt64
        var lastTime: Double
    }

    private var verdicts: [ProcessIdentity: Verdict] = [:]
    private var watches: [ProcessIdentity: Watch] = [:]
    private var throttles: [ProcessIdentity: Throttle] = [:]
    /// Original `cpu.max` of each cgroup we limited, restored on the way out.
    private var cgroupOriginals: [String: String] = [:]
    private var ticksPerSecond: Int { sampler.ticksPerSecond }

    /// Thread times come from task stat files, in clock ticks.
    private func nanoseconds(ticks: UInt64) -> UInt64 {
        let (product, overflow) = ticks.multipliedReportingOverflow(by: 1_000_000_000 / UInt64(max(1, ticksPerSecond)))
        return overflow ? .max : product
    }

    /// Threads are sampled for every watched process while there are few of them, and
    /// otherwise once a process has used this fraction of its budget.
    private static var threadSamplingBudgetFraction: Double { 0.25 }
    private static var alwaysSampleThreadsUpTo: Int { 16 }

    public init(
        configuration: CPUMonitorConfiguration, root: String = "/", clock: any JouleClock,
        controller: Controller, monitor: MonitorIdentity = .current(), store: ReportStore?,
        ticksPerSecond: Int = Syscalls.clockTicksPerSecond()
    ) throws(CPUMonitorError) {
        try configuration.validate()
        var compiled: [Regex<AnyRegexOutput>] = []
        for pattern in configuration.selectors.patterns {
            do {
                compiled.append(try Regex(pattern))
            } catch {
                throw .invalidPattern(pattern, "\(error)")
            }
        }
        self.configuration = configuration
        self.root = root
        self.clock = clock
        self.controller = controller
        self.monitor = monitor
        self.store = store
        procfs = ProcFS(root: root)
        sampler = ProcessSampler(root: root, ticksPerSecond: ticksPerSecond)
        system = SystemIdentity.read(root: root)
        patterns = compiled
    }

    // MARK: inspection (for tests and status lines)

    /// Identities currently watched, ascending by PID.
    public var watchedIdentities: [ProcessIdentity] { watches.keys.sorted { $0.pid < $1.pid } }

    /// The trailing-window usage of a watched process; nil until two samples exist.
    public func usage(of identity: ProcessIdentity) -> WindowUsage? {
        watches[identity]?.history.usage()
    }

    /// Duty cycle state of throttled processes: fraction of each slot they may run, and
    /// whether they are stopped right now.
    public var throttleStates: [ProcessIdentity: (duty: Double, stopped: Bool)] {
        throttles.mapValues { ($0.duty, $0.stopped) }
    }

    /// Cgroups whose `cpu.max` we changed, with the value to restore.
    public var limitedCgroups: [String: String] { cgroupOriginals }

    // MARK: sampling

    /// Samples every candidate once, updates the windows and handles violations.
    public func step() throws(CPUMonitorError) -> [CPUMonitorEvent] {
        let now = clock.now()
        let selectors = configuration.selectors
        let pidOnly = selectors.patterns.isEmpty && selectors.cgroups.isEmpty && selectors.uids.isEmpty
        let samples: [ProcessCPUSample]
        do {
            samples = try sampler.sample(only: pidOnly ? selectors.pids : nil)
        } catch {
            throw .procUnreadable(error)
        }
        var events: [CPUMonitorEvent] = []
        var seen = Set<ProcessIdentity>()
        seen.reserveCapacity(samples.count)
        for sample in samples {
            let identity = sample.identity
            seen.insert(identity)
            var verdict = verdicts[identity]
            if verdict == nil {
                guard let (decided, event) = decide(sample) else { continue }  // vanished meanwhile
                verdicts[identity] = decided
                if let event { events.append(event) }
                verdict = decided
            }
            guard verdict == .watched, watches[identity] != nil else { continue }
            watches[identity]?.history.append(time: now, nanoseconds: sample.cpuNanoseconds)
        }

        // Exited processes, and PIDs now owned by someone else, leave with their state.
        for identity in verdicts.keys where !seen.contains(identity) {
            if let watch = watches.removeValue(forKey: identity), verdicts[identity] == .watched {
                events.append(.exited(identity, name: watch.facts.name))
            }
            dropThrottle(identity)
            verdicts[identity] = nil
        }

        let budget = configuration.budgetSeconds
        let sampleAllThreads = watches.count <= Self.alwaysSampleThreadsUpTo
        for identity in watchedIdentities {
            guard var watch = watches[identity] else { continue }
            watch.history.trim(now: now, window: configuration.windowSeconds)
            watches[identity] = watch
            let usage = watch.history.usage()
            if throttles[identity] != nil, let latest = watch.history.latest { adjustDuty(identity, latest, now: now) }
            if sampleAllThreads || (usage?.cpuSeconds ?? 0) >= budget * Self.threadSamplingBudgetFraction {
                sampleThreads(identity, now: now)
            }
            if let usage, usage.cpuSeconds > budget, !watch.held {
                events.append(contentsOf: handleViolation(identity, usage: usage))
            }
        }
        return events
    }

    /// Learns a new identity's facts and decides whether to watch it; nil when it vanished.
    private func decide(_ sample: ProcessCPUSample) -> (Verdict, CPUMonitorEvent?)? {
        let selectors = configuration.selectors
        let pid = sample.pid
        if !selectors.pids.isEmpty && !selectors.pids.contains(pid) { return (.ignored, nil) }
        guard let stat = try? procfs.stat(pid), stat.startTimeTicks == sample.startTimeTicks else { return nil }
        let needCommandLine = !patterns.isEmpty
        let facts = ProcessFacts(
            identity: sample.identity, name: stat.comm, ppid: stat.ppid,
            isKernelThread: stat.isKernelThread, uid: procfs.status(pid)?.realUID,
            commandLine: needCommandLine ? procfs.commandLine(pid) : nil, cgroup: procfs.cgroup(pid))
        guard matches(facts) else { return (.ignored, nil) }
        if let reason = ProtectionReason.check(facts, monitor: monitor) {
            return (.protected, .protected(facts, reason))
        }
        watches[sample.identity] = Watch(facts: facts)
        return (.watched, .watching(facts))
    }

    private func matches(_ facts: ProcessFacts) -> Bool {
        let selectors = configuration.selectors
        if !selectors.pids.isEmpty && !selectors.pids.contains(facts.pid) { return false }
        if !selectors.uids.isEmpty {
            guard let uid = facts.uid, selectors.uids.contains(uid) else { return false }
        }
        if !selectors.cgroups.isEmpty && selectors.matchingCgroup(facts.cgroup) == nil { return false }
        if !patterns.isEmpty {
            let commandLine = facts.commandLine?.joined(separator: " ")
            let found = patterns.contains { pattern in
                (try? pattern.firstMatch(in: facts.name)) != nil
                    || commandLine.map { (try? pattern.firstMatch(in: $0)) != nil } == true
            }
            if !found { return false }
        }
        return true
    }

    private func sampleThreads(_ identity: ProcessIdentity, now: Double) {
        guard var watch = watches[identity] else { return }
        let threads = procfs.threadStats(identity.pid)
        // The main thread carries the process's start time: a mismatch means PID reuse.
        guard threads.contains(where: { $0.pid == identity.pid && $0.startTimeTicks == identity.startTimeTicks }) else {
            return
        }
        var histories: [ProcessIdentity: CPUUsageHistory] = [:]
        for thread in threads {
            var history = watch.threadHistories[thread.identity] ?? CPUUsageHistory()
            history.append(time: now, nanoseconds: nanoseconds(ticks: thread.cpuTicks))
            history.trim(now: now, window: configuration.windowSeconds)
            histories[thread.identity] = history
        }
        watch.threadHistories = histories
        watch.latestThreads = threads
        watches[identity] = watch
    }

    // MARK: actions

    private func handleViolation(_ identity: ProcessIdentity, usage: WindowUsage) -> [CPUMonitorEvent] {
        guard let watch = watches[identity] else { return [] }
        let limit = ReportStore.percent(configuration.limitPercent)
        switch configuration.action {
        case .report:
            return finishNonFatal(identity, usage, actionTaken: "none: reported only (--action report)")
        case .kill where configuration.dryRun:
            return finishNonFatal(identity, usage, actionTaken: "none (dry run): would have sent SIGKILL through a pidfd")
        case .throttle where configuration.dryRun:
            return finishNonFatal(identity, usage, actionTaken: "none (dry run): would have throttled to \(limit) of one core")
        case .kill:
            let handle: Controller.Handle
            do {
                guard let opened = try controller.open(identity) else { return vanished(identity, watch) }
                handle = opened
            } catch {
                return [.failure("cannot open \(watch.facts.name) [\(identity.pid)] to kill it: \(error)")]
            }
            defer { controller.close(handle) }
            // Everything the report needs is read while the process still exists.
            var report = makeReport(identity, usage, fatal: true, actionTaken: "killed with SIGKILL through a pidfd",
                                    terminationReason: "CPU monitor: \(usageLine(usage)) (EXC_RESOURCE CPU_FATAL, SIGKILL)")
            do {
                guard try controller.send(.kill, to: handle) else { return vanished(identity, watch) }
            } catch {
                report.fatal = false
                report.actionTaken = "none: SIGKILL failed: \(error)"
                report.terminationReason = nil
                restartWindow(identity)
                return write(report) + [.failure("cannot kill \(watch.facts.name) [\(identity.pid)]: \(error)")]
            }
            watches[identity] = nil
            verdicts[identity] = .finished
            return write(report)
        case .throttle:
            if let cgroup = configuration.selectors.matchingCgroup(watch.facts.cgroup) {
                return throttleCgroup(cgroup, identity, usage)
            }
            let handle: Controller.Handle
            do {
                guard let opened = try controller.open(identity) else { return vanished(identity, watch) }
                handle = opened
            } catch {
                return [.failure("cannot open \(watch.facts.name) [\(identity.pid)] to throttle it: \(error)")]
            }
            let now = clock.now()
            // Start from the duty that would have held the observed average to the limit.
            let duty = Self.clampDuty(configuration.limitPercent / max(usage.percent, 1))
            throttles[identity] = Throttle(
                handle: handle, duty: duty, slotStart: -Double.infinity, lastNanoseconds: watch.history.latest?.nanoseconds ?? 0,
                lastTime: now)
            watches[identity]?.held = true
            return finishNonFatal(identity, usage,
                                  actionTaken: "throttled to \(limit) of one core by SIGSTOP/SIGCONT duty cycling")
        }
    }

    private func throttleCgroup(_ cgroup: String, _ identity: ProcessIdentity, _ usage: WindowUsage) -> [CPUMonitorEvent] {
        let period = 100_000
        let quota = max(1000, Int((configuration.limitPercent / 100 * Double(period)).rounded()))
        let value = "\(quota) \(period)"
        do {
            if cgroupOriginals[cgroup] == nil {
                cgroupOriginals[cgroup] = try controller.readCPUMax(cgroup: cgroup)
                try controller.writeCPUMax(cgroup: cgroup, value: value)
            }
        } catch {
            cgroupOriginals[cgroup] = nil
            return [.failure("cannot limit cgroup \(cgroup) through cpu.max: \(error)")]
        }
        for (other, watch) in watches where configuration.selectors.matchingCgroup(watch.facts.cgroup) == cgroup {
            watches[other]?.held = true
        }
        return finishNonFatal(identity, usage,
                              actionTaken: "throttled: cgroup \(cgroup) limited to \(ReportStore.percent(configuration.limitPercent)) of one core (cpu.max \(value))")
    }

    private func finishNonFatal(_ identity: ProcessIdentity, _ usage: WindowUsage, actionTaken: String) -> [CPUMonitorEvent] {
        let report = makeReport(identity, usage, fatal: false, actionTaken: actionTaken, terminationReason: nil)
        restartWindow(identity)
        return write(report)
    }

    /// After a non-fatal action the budget starts afresh, as XNU re-arms its ledger.
    private func restartWindow(_ identity: ProcessIdentity) {
        watches[identity]?.history.restart()
        if var watch = watches[identity] {
            for key in watch.threadHistories.keys { watch.threadHistories[key]?.restart() }
            watches[identity] = watch
        }
    }

    private func vanished(_ identity: ProcessIdentity, _ watch: Watch) -> [CPUMonitorEvent] {
        watches[identity] = nil
        verdicts[identity] = .finished
        return [.exited(identity, name: watch.facts.name)]
    }

    private func write(_ report: ResourceReport) -> [CPUMonitorEvent] {
        guard let store else { return [.violation(report, reportPath: nil)] }
        do {
            return [.violation(report, reportPath: try store.write(report).textPath)]
        } catch {
            return [.violation(report, reportPath: nil), .failure("cannot write report: \(error)")]
        }
    }

    private func usageLine(_ usage: WindowUsage) -> String {
        "\(ResourceReport.wholeSeconds(usage.cpuSeconds)) seconds cpu time over \(ResourceReport.wholeSeconds(usage.observedSeconds)) seconds"
    }

    private func makeReport(
        _ identity: ProcessIdentity, _ usage: WindowUsage, fatal: Bool, actionTaken: String, terminationReason: String?
    ) -> ResourceReport {
        let watch = watches[identity]
        let facts = watch?.facts
        let pid = identity.pid
        var threads: [ReportThread] = []
        if let watch {
            for stat in watch.latestThreads.prefix(256) {
                let cpu = watch.threadHistories[stat.identity]?.usage()?.cpuSeconds
                threads.append(ReportThread(
                    tid: stat.pid, name: stat.comm, state: stat.state.name, cpuSeconds: cpu,
                    wchan: procfs.wchan(pid, stat.pid), kernelStack: procfs.kernelStack(pid, stat.pid), heaviest: false))
            }
            let heaviest = threads.indices.max { a, b in
                let (x, y) = (threads[a].cpuSeconds ?? -1, threads[b].cpuSeconds ?? -1)
                if x != y { return x < y }
                return watch.latestThreads[a].cpuTicks < watch.latestThreads[b].cpuTicks
            }
            if let heaviest { threads[heaviest].heaviest = true }
        }
        let ppid = facts?.ppid ?? 0
        return ResourceReport(
            timestamp: Date(timeIntervalSince1970: clock.now()), processName: facts?.name ?? "pid \(pid)", pid: pid,
            processStartTimeTicks: identity.startTimeTicks, path: procfs.executablePath(pid),
            commandLine: facts?.commandLine ?? procfs.commandLine(pid),
            parentName: (try? procfs.stat(ppid))??.comm, parentPid: ppid, uid: facts?.uid,
            userName: facts?.uid.flatMap { SystemIdentity.userName(uid: $0, root: root) },
            cgroup: facts?.cgroup, osVersion: system.osVersion, hardwareModel: system.hardwareModel, fatal: fatal,
            limitPercent: configuration.limitPercent, windowSeconds: configuration.windowSeconds,
            cpuSeconds: usage.cpuSeconds, observedSeconds: usage.observedSeconds,
            action: configuration.action.rawValue, dryRun: configuration.dryRun, actionTaken: actionTaken,
            terminationReason: terminationReason, threads: threads)
    }

    // MARK: throttling

    private static func clampDuty(_ duty: Double) -> Double {
        guard duty.isFinite else { return 1 }
        return min(1, max(0.02, duty))
    }

    /// Moves the duty cycle toward the limit from the usage since the previous sample:
    /// a process that used u cores while allowed to run a fraction d of the time would use
    /// u/d unthrottled, so d·limit/u holds it to the limit. Halfway steps avoid oscillation.
    private func adjustDuty(_ identity: ProcessIdentity, _ latest: CPUUsageHistory.Point, now: Double) {
        guard var throttle = throttles[identity], latest.time > throttle.lastTime,
              latest.nanoseconds >= throttle.lastNanoseconds
        else {
            return
        }
        let cores = Double(latest.nanoseconds - throttle.lastNanoseconds) / 1e9 / (latest.time - throttle.lastTime)
        let target = configuration.limitPercent / 100
        let ideal = cores > 0.005 ? throttle.duty * target / cores : throttle.duty * 2
        throttle.duty = Self.clampDuty((throttle.duty + ideal) / 2)
        throttle.lastNanoseconds = latest.nanoseconds
        throttle.lastTime = latest.time
        throttles[identity] = throttle
    }

    /// Runs the duty cycle: SIGCONT at the start of each slot, SIGSTOP once the process has
    /// run its share of it. Returns when it next needs to run, nil when nothing is throttled.
    @discardableResult
    public func advanceThrottle() -> Double? {
        let now = clock.now()
        let period = configuration.throttlePeriodSeconds
        var next: Double?
        for identity in throttles.keys.sorted(by: { $0.pid < $1.pid }) {
            guard var throttle = throttles[identity] else { continue }
            if now >= throttle.slotStart + period {
                throttle.slotStart = now
                throttle.stopAt = throttle.duty < 1 ? now + throttle.duty * period : nil
                if throttle.stopped {
                    guard signal(.cont, identity, &throttle) else { continue }
                    throttle.stopped = false
                }
            }
            if let stopAt = throttle.stopAt, now >= stopAt, !throttle.stopped {
                guard Syscalls.markPossiblyStopped(identity.pid) else {
                    throttle.stopAt = nil  // no room to guarantee a SIGCONT after a crash: do not stop
                    throttles[identity] = throttle
                    continue
                }
                guard signal(.stop, identity, &throttle) else { continue }
                throttle.stopped = true
                throttle.stopAt = nil
            }
            throttles[identity] = throttle
            let due = throttle.stopAt ?? (throttle.slotStart + period)
            next = min(next ?? due, due)
        }
        return next
    }

    /// Signals a throttled process; false (and the throttle dropped) when it has gone.
    private func signal(_ signal: ProcessSignal, _ identity: ProcessIdentity, _ throttle: inout Throttle) -> Bool {
        let delivered = (try? controller.send(signal, to: throttle.handle)) ?? false
        if !delivered {
            throttles[identity] = throttle
            dropThrottle(identity)
        }
        return delivered
    }

    private func dropThrottle(_ identity: ProcessIdentity) {
        guard let throttle = throttles.removeValue(forKey: identity) else { return }
        if throttle.stopped { _ = try? controller.send(.cont, to: throttle.handle) }
        controller.close(throttle.handle)
        Syscalls.unmarkPossiblyStopped(identity.pid)
    }

    /// Continues every throttled process (whatever we believe its state to be), closes their
    /// handles and restores every cgroup `cpu.max`. Safe to call more than once.
    public func releaseAll() -> [CPUMonitorEvent] {
        var events: [CPUMonitorEvent] = []
        for (identity, throttle) in throttles {
            do {
                _ = try controller.send(.cont, to: throttle.handle)
            } catch {
                events.append(.failure("cannot continue pid \(identity.pid): \(error)"))
            }
            controller.close(throttle.handle)
            Syscalls.unmarkPossiblyStopped(identity.pid)
        }
        throttles.removeAll()
        for (cgroup, original) in cgroupOriginals {
            do {
                try controller.writeCPUMax(cgroup: cgroup, value: original)
            } catch {
                events.append(.failure("cannot restore cpu.max of \(cgroup) to \(original): \(error)"))
            }
        }
        cgroupOriginals.removeAll()
        return events
    }

    // MARK: loop

    /// Samples every interval and runs the duty cycle until the duration ends or the task is
    /// cancelled (SIGINT/SIGTERM in the CLI). Whatever ends it, including an error, every
    /// stopped process is continued before it returns.
    public func run(onEvent: @Sendable (CPUMonitorEvent) -> Void) async throws(CPUMonitorError) {
        defer { for event in releaseAll() { onEvent(event) } }
        let interval = configuration.effectiveIntervalSeconds
        let start = clock.now()
        let end = configuration.durationSeconds.map { start + $0 }
        var nextSample = start
        while !Task.isCancelled {
            let now = clock.now()
            if let end, now >= end { break }
            if now >= nextSample {
                for event in try step() { onEvent(event) }
                nextSample += interval
                if nextSample <= now { nextSample = now + interval }
            }
            var wake = min(nextSample, advanceThrottle() ?? nextSample)
            if let end { wake = min(wake, end) }
            do {
                try await clock.sleep(until: wake)
            } catch {
                break  // cancelled
            }
        }
    }
}
