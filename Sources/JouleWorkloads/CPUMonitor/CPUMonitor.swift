import JouleHardware
import JouleEnergy

/// XNU's CPU monitor on Linux. 100 % is one core; a watched process may spend
/// `limit × window` seconds of CPU time within any trailing window, and is handled (killed,
/// throttled or reported) as soon as the CPU time it spent since the oldest sample still
/// inside the window exceeds that budget.
///
/// The engine takes a root (so fixture /proc trees drive it), a clock (so tests step time),
/// and process control (pidfds live, a recorder in tests). `step()` samples once;
/// `advanceThrottle()` runs the SIGSTOP/SIGCONT duty cycles; `run()` loops both until the
/// duration ends or the task is cancelled, and always continues every process it stopped
/// and restores every cgroup file it changed on the way out.
///
/// A watched cgroup is throttled through its `cpu.max`. When that file is missing or cannot
/// be written, the `cpu` controller is enabled in the parent's `cgroup.subtree_control` if
/// the kernel allows it; otherwise every process in the cgroup and below is duty cycled.
/// Throttling never fails open.
public actor CPUMonitor<Controller: ProcessController> {
    public let configuration: CPUMonitorConfiguration
    public let root: String
    private let clock: any JouleClock
    private let controller: Controller
    private let procfs: ProcFS
    private let sampler: ProcessSampler
    private let safety: SafetyRules
    private let store: ReportStore?
    private let reports: ResourceReportBuilder
    private let matcher: ProcessMatcher

    private enum Verdict { case ignored, protected, watched, finished }

    private struct Watch {
        var facts: ProcessFacts
        var history = CPUUsageHistory()
        var threadHistories: [ProcessIdentity: CPUUsageHistory] = [:]
        var latestThreads: [ProcessStat] = []
        /// Set once a cgroup limit or a duty cycle holds the process: reported once, not again.
        var held = false
        /// When a report-only episode last found the process over its budget: one report per
        /// episode, as iOS writes one per breach. The episode ends once a whole window passes
        /// after that without the budget being spent again.
        var episodeLastOver: Double?
    }

    private var verdicts: [ProcessIdentity: Verdict] = [:]
    /// When each ignored process was first and last judged. What a matcher reads can change
    /// after a process is first seen: between fork and exec (or `prctl(PR_SET_NAME)`) comm and
    /// the command line are still the parent's, and launchers move a child into its cgroup
    /// after the fork. So ignored processes are judged again: every step while they are young,
    /// then every `ignoredRecheck`.
    private var ignoredChecks: [ProcessIdentity: (first: Double, last: Double)] = [:]
    private static var youngProcess: Duration { .seconds(2) }
    private static var ignoredRecheck: Duration { .seconds(5) }
    private var watches: [ProcessIdentity: Watch] = [:]
    private var throttler: DutyCycleThrottler<Controller>
    private var limiter: CgroupCPULimiter<Controller>
    /// How each throttled cgroup is held (the report's `actionTaken`), decided once.
    private var cgroupActions: [CgroupPath: String] = [:]
    /// Whether a process found in a duty-cycled cgroup may be stopped (the safety rules).
    private var memberVerdicts: [ProcessIdentity: Bool] = [:]
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
        controller: Controller, safety: SafetyRules = .current(), store: ReportStore?,
        ticksPerSecond: Int = CurrentProcess.clockTicksPerSecond
    ) throws(CPUMonitorError) {
        try configuration.validate()
        var patterns: [ProcessMatcher.Pattern] = []
        for pattern in configuration.selectors.patterns {
            switch ProcessMatcher.compile(pattern) {
            case .success(let regex): patterns.append(.commOrCommandRegex(regex))
            case .failure(let error): throw .invalidPattern(pattern, error.reason)
            }
        }
        let selectors = configuration.selectors
        matcher = ProcessMatcher(
            pids: selectors.pids, uids: selectors.uids, cgroups: selectors.cgroups.map(CgroupPath.init), patterns: patterns)
        self.configuration = configuration
        self.root = root
        self.clock = clock
        self.controller = controller
        self.safety = safety
        self.store = store
        procfs = ProcFS(root: root)
        throttler = DutyCycleThrottler(
            controller: controller, period: configuration.throttlePeriod, limitPercent: configuration.limitPercent)
        limiter = CgroupCPULimiter(controller: controller)
        sampler = ProcessSampler(root: root, ticksPerSecond: ticksPerSecond)
        reports = ResourceReportBuilder(
            inspector: ProcessInspector(root: root), system: SystemIdentity.read(root: root), configuration: configuration)
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
        throttler.processes.mapValues { ($0.cycle.duty, $0.cycle.stopped) }
    }

    /// Cgroups whose `cpu.max` we changed, with the value to restore.
    public var limitedCgroups: [String: String] {
        Dictionary(uniqueKeysWithValues: limiter.originals.map { ($0.key.description, $0.value) })
    }

    /// Cgroups whose parent got the `cpu` controller from us.
    public var cpuControllerEnabledCgroups: [String] { limiter.enabled.map(\.description) }

    /// Cgroups held by duty cycling: the duty, and the PIDs stopped right now.
    public var dutyCycledCgroups: [String: (duty: Double, stopped: [Int32])] {
        Dictionary(uniqueKeysWithValues: throttler.groups.map { cgroup, group in
            (cgroup.description, (group.cycle.duty, group.stopped.map(\.pid).sorted()))
        })
    }

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
        if !throttler.groups.isEmpty {
            var times: [ProcessIdentity: UInt64] = [:]
            for sample in samples { times[sample.identity] = sample.cpuNanoseconds }
            throttler.observe(samples: times, time: now)
        }
        for sample in samples {
            let identity = sample.identity
            seen.insert(identity)
            var verdict = verdicts[identity]
            if verdict == .ignored, !pidOnly, let checks = ignoredChecks[identity],
               now - checks.first < Self.youngProcess.inSeconds || now - checks.last >= Self.ignoredRecheck.inSeconds {
                verdict = nil
            }
            if verdict == nil {
                guard let (decided, event) = decide(sample) else { continue }  // vanished meanwhile
                verdicts[identity] = decided
                if decided == .ignored {
                    ignoredChecks[identity] = (ignoredChecks[identity]?.first ?? now, now)
                } else {
                    ignoredChecks[identity] = nil
                }
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
            throttler.drop(identity)
            verdicts[identity] = nil
            ignoredChecks[identity] = nil
        }
        memberVerdicts = memberVerdicts.filter { seen.contains($0.key) }

        let budget = configuration.budgetSeconds
        let sampleAllThreads = watches.count <= Self.alwaysSampleThreadsUpTo
        for identity in watchedIdentities {
            guard var watch = watches[identity] else { continue }
            watch.history.trim(now: now, window: configuration.window)
            watches[identity] = watch
            let usage = watch.history.usage()
            if let latest = watch.history.latest {
                throttler.observe(identity, nanoseconds: latest.nanoseconds, time: latest.time)
            }
            if sampleAllThreads || (usage?.cpuSeconds ?? 0) >= budget * Self.threadSamplingBudgetFraction {
                sampleThreads(identity, now: now)
            }
            if let since = watch.episodeLastOver, now - since >= configuration.window.inSeconds {
                watches[identity]?.episodeLastOver = nil
            }
            if let usage, usage.cpuSeconds > budget, !watch.held {
                if watches[identity]?.episodeLastOver != nil {
                    // Still the same breach: re-armed, not reported again.
                    watches[identity]?.episodeLastOver = now
                    restartWindow(identity)
                } else {
                    events.append(contentsOf: handleViolation(identity, usage: usage))
                }
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
        let needCommandLine = matcher.needsCommandLine
        let facts = ProcessFacts(
            identity: sample.identity, name: stat.comm, ppid: stat.ppid,
            isKernelThread: stat.isKernelThread, uid: procfs.status(pid)?.realUID,
            commandLine: needCommandLine ? procfs.commandLine(pid) : nil, cgroup: procfs.cgroup(pid))
        let candidate = ProcessMatcher.Candidate(
            pid: pid, comm: facts.name, uid: { facts.uid }, commandLine: { facts.commandLine }, cgroup: { facts.cgroup })
        guard matcher.matches(candidate) else { return (.ignored, nil) }
        if let reason = protection(facts) {
            return (.protected, .protected(facts, reason))
        }
        watches[sample.identity] = Watch(facts: facts)
        return (.watched, .watching(facts))
    }

    private func protection(_ facts: ProcessFacts) -> Protection? {
        safety.protection(pid: facts.pid, ppid: facts.ppid, isKernelThread: facts.isKernelThread, uid: facts.uid)
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
            history.trim(now: now, window: configuration.window)
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
                guard try controller.kill(handle) else { return vanished(identity, watch) }
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
            if let cgroup = matcher.matchingCgroup(watch.facts.cgroup) {
                return throttleCgroup(cgroup, identity, usage)
            }
            let handle: Controller.Handle
            do {
                guard let opened = try controller.open(identity) else { return vanished(identity, watch) }
                handle = opened
            } catch {
                return [.failure("cannot open \(watch.facts.name) [\(identity.pid)] to throttle it: \(error)")]
            }
            // Start from the duty that would have held the observed average to the limit.
            throttler.hold(
                identity, handle: handle, duty: configuration.limitPercent / max(usage.percent, 1),
                nanoseconds: watch.history.latest?.nanoseconds ?? 0, now: clock.now())
            watches[identity]?.held = true
            return finishNonFatal(identity, usage,
                                  actionTaken: "throttled to \(limit) of one core by SIGSTOP/SIGCONT duty cycling")
        }
    }

    private func throttleCgroup(_ cgroup: CgroupPath, _ identity: ProcessIdentity, _ usage: WindowUsage) -> [CPUMonitorEvent] {
        var events: [CPUMonitorEvent] = []
        let actionTaken: String
        if let decided = cgroupActions[cgroup] {
            actionTaken = decided
        } else {
            let limit = ReportStore.percent(configuration.limitPercent)
            let period = 100_000
            let quota = max(1000, Int((configuration.limitPercent / 100 * Double(period)).rounded()))
            let value = "\(quota) \(period)"
            // A cgroup holding the monitor or pid 1 is never limited as a whole: only the
            // processes in it that the safety rules allow are duty cycled.
            let outcome: CgroupCPULimiter<Controller>.Outcome =
                if let held = safety.protection(holding: cgroup.description) {
                    .unavailable(held.monitorDescription)
                } else {
                    limiter.limit(cgroup, to: value)
                }
            switch outcome {
            case .limited(enabledController: false):
                actionTaken = "throttled: cgroup \(cgroup) limited to \(limit) of one core (cpu.max \(value))"
            case .limited(enabledController: true):
                let parent = cgroup.parent ?? .root
                let control = parent.isRoot ? "/cgroup.subtree_control" : "\(parent)/cgroup.subtree_control"
                actionTaken = "throttled: cgroup \(cgroup) limited to \(limit) of one core (cpu.max \(value), "
                    + "after enabling the cpu controller in \(control))"
                events.append(.throttling(
                    "cgroup \(cgroup): cpu.max was unavailable, so the cpu controller is enabled in "
                        + "\(control) and the limit set through cpu.max; both are undone on exit"))
            case .unavailable(let reason):
                actionTaken = "throttled: cgroup \(cgroup) held to \(limit) of one core by SIGSTOP/SIGCONT duty cycling "
                    + "of its processes (cpu.max unavailable: \(reason))"
                events.append(.throttling(
                    "cgroup \(cgroup): cannot limit through cpu.max (\(reason)); throttling its processes by "
                        + "SIGSTOP/SIGCONT duty cycling instead"))
                // Start from the duty that would have held the observed average to the limit.
                throttler.hold(cgroup: cgroup, duty: configuration.limitPercent / max(usage.percent, 1), now: clock.now())
            }
            cgroupActions[cgroup] = actionTaken
        }
        for (other, watch) in watches where matcher.matchingCgroup(watch.facts.cgroup) == cgroup {
            watches[other]?.held = true
        }
        return events + finishNonFatal(identity, usage, actionTaken: actionTaken)
    }

    /// The processes of a duty-cycled cgroup (and below) that the safety rules let us stop.
    private func stoppableMembers(_ cgroup: CgroupPath) -> [ProcessIdentity] {
        var members: [ProcessIdentity] = []
        for pid in controller.processes(inTree: cgroup) {
            guard let stat = try? procfs.stat(pid), stat.state != .zombie else { continue }
            let identity = stat.identity
            if let allowed = memberVerdicts[identity] {
                if allowed { members.append(identity) }
                continue
            }
            let facts = ProcessFacts(
                identity: identity, name: stat.comm, ppid: stat.ppid, isKernelThread: stat.isKernelThread,
                uid: procfs.status(pid)?.realUID, commandLine: nil, cgroup: procfs.cgroup(pid))
            let allowed = protection(facts) == nil
            memberVerdicts[identity] = allowed
            if allowed { members.append(identity) }
        }
        return members
    }

    private func finishNonFatal(_ identity: ProcessIdentity, _ usage: WindowUsage, actionTaken: String) -> [CPUMonitorEvent] {
        let report = makeReport(identity, usage, fatal: false, actionTaken: actionTaken, terminationReason: nil)
        restartWindow(identity)
        // A held process is reported once anyway; one that runs on as it was opens an episode.
        if watches[identity]?.held == false { watches[identity]?.episodeLastOver = clock.now() }
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
        "\(ResourceReport.spanSeconds(usage.cpuSeconds)) seconds cpu time over \(ResourceReport.spanSeconds(usage.observedSeconds)) seconds"
    }

    private func makeReport(
        _ identity: ProcessIdentity, _ usage: WindowUsage, fatal: Bool, actionTaken: String, terminationReason: String?
    ) -> ResourceReport {
        let watch = watches[identity]
        let threads = (watch?.latestThreads ?? []).map { stat in
            ResourceReportBuilder.ThreadSample(stat: stat, cpuSeconds: watch?.threadHistories[stat.identity]?.usage()?.cpuSeconds)
        }
        return reports.report(
            identity, facts: watch?.facts, threads: threads, usage: usage, time: clock.now(), fatal: fatal,
            actionTaken: actionTaken, terminationReason: terminationReason)
    }

    // MARK: throttling

    /// Runs the duty cycles: SIGCONT at the start of each slot, SIGSTOP once the held work has
    /// run its share of it. Returns when it next needs to run, nil when nothing is duty cycled.
    @discardableResult
    public func advanceThrottle() -> Double? {
        guard !throttler.isEmpty else { return nil }
        let now = clock.now()
        return throttler.advance(now: now) { cgroup in stoppableMembers(cgroup) }
    }

    /// Continues every throttled process (whatever we believe its state to be), closes their
    /// handles, restores every cgroup `cpu.max` and disables every controller we enabled.
    /// Safe to call more than once.
    public func releaseAll() -> [CPUMonitorEvent] {
        (throttler.releaseAll() + limiter.restoreAll()).map { .failure($0) }
    }

    // MARK: loop

    /// Samples every interval and runs the duty cycle until the duration ends or the task is
    /// cancelled (SIGINT/SIGTERM in the CLI). Whatever ends it, including an error, every
    /// stopped process is continued before it returns.
    public func run(onEvent: @Sendable (CPUMonitorEvent) -> Void) async throws(CPUMonitorError) {
        defer { for event in releaseAll() { onEvent(event) } }
        let interval = configuration.effectiveInterval
        let start = clock.now()
        let end = configuration.duration.map { start + $0 }
        var nextSample = start
        while !Task.isCancelled {
            let now = clock.now()
            if let end, now >= end { break }
            if now >= nextSample {
                for event in try step() { onEvent(event) }
                nextSample = nextSample + interval
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

    /// `run(onEvent:)` until the duration ends or `stop` yields a signal, which is reported
    /// to `onSignal` before the monitor continues what it stopped and returns.
    public func run(
        until stop: AsyncStream<TerminationSignal>, onSignal: @escaping @Sendable (TerminationSignal) -> Void,
        onEvent: @escaping @Sendable (CPUMonitorEvent) -> Void
    ) async throws(CPUMonitorError) {
        let work = Task { try await self.run(onEvent: onEvent) }
        let watcher = Task {
            for await signal in stop {
                onSignal(signal)
                work.cancel()
                return
            }
        }
        defer { watcher.cancel() }
        switch await work.result {
        case .success: return
        case .failure(let error as CPUMonitorError): throw error
        case .failure: return  // only cancellation, which run(onEvent:) turns into a return
        }
    }
}
