/// How one download attempt ended, for the retry policy and the queue.
public enum TransferOutcome: Sendable, Equatable {
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

    /// Retried or suspended: the transfer stays live.
    public var isTransient: Bool {
        switch self {
        case .retry, .suspended: true
        case .completed, .failed: false
        }
    }
}
