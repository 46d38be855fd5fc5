import JouleHardware
/// When to try again (issue 13 "Retry"), as BITS does it: exponential backoff from
/// `retryInitial`, doubling per attempt without progress up to `retryMax`, ± `retryJitter`;
/// a server's Retry-After wins, clamped to [`retryAfterMin`, `retryAfterMax`]; any progress
/// resets the count; `maxAttemptsWithoutProgress` or the deadline fails the transfer. Pure:
/// time and randomness come in.
public struct RetryPolicy: Sendable, Equatable {
    public var tuning: TransferTuning

    public init(tuning: TransferTuning = TransferTuning()) { self.tuning = tuning }

    public enum Decision: Sendable, Equatable {
        case completed
        /// Next attempt at `at` (Unix seconds); store `attemptsWithoutProgress`.
        case retry(at: Double, attemptsWithoutProgress: Int)
        /// Suspended (throughput): retry at `at` without counting an attempt.
        case suspend(at: Double, attemptsWithoutProgress: Int)
        case failed(reason: String)
    }

    /// The backoff for the `attempt`-th consecutive attempt without progress (1-based), with
    /// `random` in 0..<1 picking the jitter (0.5 is none).
    public func backoff(attempt: Int, random: Double) -> Duration {
        let initial = tuning.retryInitial.inSeconds, cap = tuning.retryMax.inSeconds
        let exponent = Double(max(0, min(attempt - 1, 62)))
        let base = min(cap, initial * pow2(exponent))
        let jitter = 1 + tuning.retryJitter * (2 * min(max(random, 0), 1) - 1)
        return .seconds(clamping: base * jitter)
    }

    /// A Retry-After span clamped to the configured bounds.
    public func clampRetryAfter(_ span: Duration) -> Duration {
        min(max(span, tuning.retryAfterMin), tuning.retryAfterMax)
    }

    /// - Parameters:
    ///   - attemptsWithoutProgress: the stored count before this attempt.
    ///   - deadline: created + timeout (Unix seconds).
    public func decide(
        after result: TransferAttemptResult, attemptsWithoutProgress: Int, now: Double, deadline: Double, random: Double
    ) -> Decision {
        switch result.outcome {
        case .completed:
            return .completed
        case .failed(let reason):
            return .failed(reason: reason)
        case .suspended:
            let count = result.progressed ? 0 : attemptsWithoutProgress
            let at = now + backoff(attempt: max(1, count), random: random)
            return at >= deadline ? .failed(reason: "deadline passed") : .suspend(at: at, attemptsWithoutProgress: count)
        case .retry(let reason, let retryAfter):
            let count = result.progressed ? 0 : attemptsWithoutProgress + 1
            if count >= tuning.maxAttemptsWithoutProgress {
                return .failed(reason: "\(count) attempts without progress; last: \(reason)")
            }
            let delay: Duration
            if let retryAfter, let span = RetryAfter.delay(retryAfter, now: now) {
                delay = clampRetryAfter(span)
            } else {
                delay = backoff(attempt: max(1, count), random: random)
            }
            let at = now + delay
            return at >= deadline ? .failed(reason: "deadline passed; last: \(reason)") : .retry(at: at, attemptsWithoutProgress: count)
        }
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}
