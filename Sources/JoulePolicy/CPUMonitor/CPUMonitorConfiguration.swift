/// Options of `joule cpu-monitor`, with the CLI's defaults.
public struct CPUMonitorConfiguration: Sendable, Equatable {
    /// Percent of one core (100 = one full core; 250 = two and a half cores).
    public var limitPercent: Double = 80
    /// The trailing window over which the budget applies.
    public var windowSeconds: Double = 60
    public var action: CPUMonitorAction = .kill
    /// Sampling interval; nil means a tenth of the window, at most one second.
    public var intervalSeconds: Double?
    /// Stop after this long; nil runs until interrupted.
    public var durationSeconds: Double?
    /// Decide and report, but never signal or write cgroup files.
    public var dryRun = false
    public var selectors = ProcessSelectors()
    /// SIGSTOP/SIGCONT duty-cycle slot (cpulimit uses 100 ms).
    public var throttlePeriodSeconds: Double = 0.1

    public init() {}

    /// The CPU time a process may spend within the window: limit × window.
    public var budgetSeconds: Double { limitPercent / 100 * windowSeconds }

    public var effectiveIntervalSeconds: Double { intervalSeconds ?? min(1, windowSeconds / 10) }

    /// Refuses options that could never work or that the safety rules forbid outright.
    public func validate() throws(CPUMonitorError) {
        func bad(_ message: String) -> CPUMonitorError { .invalidConfiguration(message) }
        guard limitPercent.isFinite, limitPercent > 0 else { throw bad("--limit must be a positive percentage of one core, got \(limitPercent)") }
        guard windowSeconds.isFinite, windowSeconds > 0 else { throw bad("--window must be a positive number of seconds, got \(windowSeconds)") }
        let interval = effectiveIntervalSeconds
        guard interval.isFinite, interval > 0 else { throw bad("--interval must be a positive number of seconds, got \(interval)") }
        guard interval <= windowSeconds else { throw bad("--interval (\(interval) s) must not exceed --window (\(windowSeconds) s)") }
        if let duration = durationSeconds {
            guard duration.isFinite, duration > 0 else { throw bad("--duration must be a positive number of seconds, got \(duration)") }
        }
        guard !selectors.isEmpty else {
            throw bad("choose what to watch: --pid, --match, --cgroup or --uid (the monitor never acts on processes outside them)")
        }
        if selectors.pids.contains(1) { throw bad("refusing --pid 1: init is never monitored, throttled or killed") }
        if let negative = selectors.pids.first(where: { $0 <= 0 }) { throw bad("--pid \(negative) is not a process ID") }
        if action == .throttle && selectors.cgroups.contains("/") {
            throw bad("refusing to throttle the root cgroup")
        }
    }
}
