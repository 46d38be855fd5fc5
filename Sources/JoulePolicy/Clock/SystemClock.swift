#if canImport(Glibc)
import Glibc
#endif

/// The live clock: timestamps from CLOCK_REALTIME, sleeps measured on the monotonic clock so a
/// wall-clock jump (NTP, suspend) cannot stretch or skip a poll.
public struct SystemClock: JouleClock {
    public init() {}

    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public func sleep(until deadline: Double) async throws {
        let remaining = deadline - now()
        guard remaining > 0 else {
            try Task.checkCancellation()
            return
        }
        // Generous tolerance lets the kernel coalesce our wakeups with others' (timer slack).
        try await ContinuousClock().sleep(for: .seconds(remaining), tolerance: .milliseconds(50))
    }
}
