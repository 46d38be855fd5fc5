/// Options of `joule cpu-monitor`, with the CLI's defaults.
public struct CPUMonitorConfiguration: Sendable, Equatable {
    /// Percent of one core (100 = one full core; 250 = two and a half cores).
    public var limitPercent: Double = 80
    /// The trailing window over which the budget applies.
    public var window: Duration = .seconds(60)
    public var action: CPUMonitorAction = .kill
    /// Sampling interval; nil means a tenth of the window, at most one second.
    public var interval: Duration?
    /// Stop after this long; nil runs until interrupted.
    public var duration: Duration?
    /// Decide and report, but never signal or write cgroup files.
    public var dryRun = false
    public var selectors = ProcessSelectors()
    /// SIGSTOP/SIGCONT duty-cycle slot (cpulimit uses 100 ms).
    public var throttlePeriod: Duration = .milliseconds(100)

    public init() {}

    /// The options as the command line gives them, in seconds. Refuses, with `validate()`'s own
    /// words and in its order, spans that are not positive or that no `Duration` can hold (NaN,
    /// infinities); call `validate()` for the rest.
    public init(limitPercent: Double, windowSeconds: Double, intervalSeconds: Double?, durationSeconds: Double?)
        throws(CPUMonitorError)
    {
        self.limitPercent = limitPercent
        try Self.checkLimit(limitPercent)
        window = try Self.span(windowSeconds, option: "--window")
        if let intervalSeconds { interval = try Self.span(intervalSeconds, option: "--interval") }
        try Self.checkInterval(effectiveInterval, within: window)
        if let durationSeconds { duration = try Self.span(durationSeconds, option: "--duration") }
    }

    /// The CPU time a process may spend within the window, limit × window, in seconds: it is
    /// compared with measured CPU time (`WindowUsage.cpuSeconds`).
    public var budgetSeconds: Double { limitPercent / 100 * window.inSeconds }

    public var effectiveInterval: Duration { interval ?? min(.seconds(1), window / 10) }

    /// Refuses options that could never work or that the safety rules forbid outright.
    public func validate() throws(CPUMonitorError) {
        func bad(_ message: String) -> CPUMonitorError { .invalidConfiguration(message) }
        try Self.checkLimit(limitPercent)
        guard window > .zero else { throw Self.notPositive("--window", window.inSeconds) }
        let interval = effectiveInterval
        guard interval > .zero else { throw Self.notPositive("--interval", interval.inSeconds) }
        try Self.checkInterval(interval, within: window)
        if let duration {
            guard duration > .zero else { throw Self.notPositive("--duration", duration.inSeconds) }
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

    private static func checkLimit(_ limitPercent: Double) throws(CPUMonitorError) {
        guard limitPercent.isFinite, limitPercent > 0 else {
            throw .invalidConfiguration("--limit must be a positive percentage of one core, got \(limitPercent)")
        }
    }

    private static func checkInterval(_ interval: Duration, within window: Duration) throws(CPUMonitorError) {
        guard interval <= window else {
            throw .invalidConfiguration("--interval (\(interval.inSeconds) s) must not exceed --window (\(window.inSeconds) s)")
        }
    }

    /// Seconds from the command line as a span, refused as `validate()` would refuse them.
    /// The longest window, interval or duration: a week. Beyond it a budget is no longer a
    /// monitor's (and 1e300 s printed as 32000000000000 s).
    static let longestSpan = 7 * 86_400.0

    private static func span(_ seconds: Double, option: String) throws(CPUMonitorError) -> Duration {
        guard seconds > 0, let span = Duration.seconds(checked: seconds) else { throw notPositive(option, seconds) }
        guard seconds <= longestSpan || option == "--duration" else {
            throw .invalidConfiguration("\(option) must be at most \(Int(longestSpan)) seconds (a week), got \(seconds)")
        }
        return span
    }

    private static func notPositive(_ option: String, _ seconds: Double) -> CPUMonitorError {
        .invalidConfiguration("\(option) must be a positive number of seconds, got \(seconds)")
    }
}
