/// The HTTP and retry thresholds of deferred transfers. Field names are the binding config
/// keys under `transfers:` (issue 13), so tests can shrink them; defaults are the issue's.
public struct TransferTuning: Sendable, Hashable {
    /// First retry delay; doubles per attempt without progress.
    public var retryInitial: Duration = .seconds(30)
    /// Cap of the exponential delay (5 h).
    public var retryMax: Duration = .seconds(18_000)
    /// ± fraction applied to each computed delay, so many clients do not retry in step.
    public var retryJitter: Double = 0.2
    /// Clamp of a server's Retry-After (30 s to 24 h).
    public var retryAfterMin: Duration = .seconds(30)
    public var retryAfterMax: Duration = .seconds(86_400)
    /// Redirects followed within one attempt.
    public var maxRedirects: Int = 5
    /// Attempts without a byte of progress before the transfer fails.
    public var maxAttemptsWithoutProgress: Int = 5
    /// Bytes per second below which, sustained over `throughputWindow`, an attempt is suspended.
    public var throughputFloor: Int = 1024
    public var throughputWindow: Duration = .seconds(30)

    public init() {}

    public init(
        retryInitial: Duration = .seconds(30), retryMax: Duration = .seconds(18_000), retryJitter: Double = 0.2,
        retryAfterMin: Duration = .seconds(30), retryAfterMax: Duration = .seconds(86_400), maxRedirects: Int = 5,
        maxAttemptsWithoutProgress: Int = 5, throughputFloor: Int = 1024, throughputWindow: Duration = .seconds(30)
    ) {
        self.retryInitial = retryInitial
        self.retryMax = retryMax
        self.retryJitter = retryJitter
        self.retryAfterMin = retryAfterMin
        self.retryAfterMax = retryAfterMax
        self.maxRedirects = maxRedirects
        self.maxAttemptsWithoutProgress = maxAttemptsWithoutProgress
        self.throughputFloor = throughputFloor
        self.throughputWindow = throughputWindow
    }
}
