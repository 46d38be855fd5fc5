import JouleHardware

/// The live clock. `now()` is the wall-clock time at creation plus the monotonic time elapsed
/// since, so timestamps read as Unix time while intervals and windows can never jump with NTP
/// or a manual clock change. Sleeps run on the monotonic clock too.
public struct SystemClock: JouleClock {
    private let startWall: Double
    private let startMonotonic: ContinuousClock.Instant

    public init() {
        startWall = WallClock.seconds()
        startMonotonic = .now
    }

    public func now() -> Double {
        let elapsed = startMonotonic.duration(to: .now).components
        return startWall + Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    public func sleep(until deadline: Double) async throws {
        let remaining = deadline - now()
        guard remaining > 0 else {
            try Task.checkCancellation()
            return
        }
        // Engines re-plan their sleeps on every change: a cancelled one must not linger.
        try await CancellableSleep.sleep(for: .seconds(clamping: remaining))
    }

    public nonisolated(nonsending) func sleep(until deadline: Double, on loop: LoopExecutor) async throws {
        let remaining = deadline - now()
        guard remaining > 0 else {
            try Task.checkCancellation()
            return
        }
        let nanos = remaining >= 1e9 ? Int64.max / 2 : Int64(remaining * 1e9)
        try await loop.sleep(untilMonotonic: LoopExecutor.monotonicNanos() + nanos, isolation: #isolation)
    }
}
