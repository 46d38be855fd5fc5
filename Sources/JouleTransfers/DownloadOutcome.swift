/// How one download attempt ended, for the retry policy and the queue.
public enum DownloadOutcome: Sendable, Equatable {
    /// Verified (length, and sha256 when given) and renamed onto the destination.
    case completed
    /// A transient failure (network error, cut body, 408/429/5xx); `retryAfter` is the
    /// server's header value as sent, when there was one.
    case retry(reason: String, retryAfter: String?)
    /// Throughput stayed below the floor for the window (including a server that hangs): try
    /// later without counting an attempt.
    case suspended(reason: String)
    /// Retrying cannot help (4xx other than 408/429, sha256 mismatch, a local file error).
    case failed(reason: String)
}

/// An attempt's result: its outcome and what the queue must store afterwards.
public struct DownloadAttemptResult: Sendable, Equatable {
    public var outcome: DownloadOutcome
    /// Bytes of the `.part` file known to be on disk (fsynced); 0 after completion's rename
    /// is irrelevant, the destination is whole.
    public var durableBytes: Int64
    /// The validators the `.part` file now belongs to.
    public var validators: ResumeValidators
    /// Whether durableBytes grew during this attempt (resets the attempts-without-progress count).
    public var progressed: Bool

    public init(outcome: DownloadOutcome, durableBytes: Int64, validators: ResumeValidators, progressed: Bool) {
        self.outcome = outcome
        self.durableBytes = durableBytes
        self.validators = validators
        self.progressed = progressed
    }
}
