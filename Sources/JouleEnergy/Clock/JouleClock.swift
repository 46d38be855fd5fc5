import JouleHardware

/// Time as the engines see it: wall-clock seconds for event timestamps, and sleeping until a
/// deadline on that same scale. Injected everywhere so tests and replays never wait for real time.
/// Spans of time (intervals, windows, timeouts) are `Duration`s; `Duration+Seconds.swift` (in
/// JouleHardware) holds the arithmetic between the two.
public protocol JouleClock: Sendable {
    /// Seconds since the Unix epoch.
    func now() -> Double
    /// Suspends until `now() >= deadline`, or throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Double) async throws
    /// The same, with the wait kept on `loop`'s thread where the clock can: an engine running
    /// on that loop then wakes once per deadline. Clocks that drive time themselves (tests'
    /// manual clocks) ignore the loop.
    nonisolated(nonsending) func sleep(until deadline: Double, on loop: LoopExecutor) async throws
}

extension JouleClock {
    public nonisolated(nonsending) func sleep(until deadline: Double, on loop: LoopExecutor) async throws {
        try await sleep(until: deadline)
    }

    /// Suspends for `span` from now, or throws `CancellationError` when the task is cancelled.
    public func sleep(for span: Duration) async throws {
        try await sleep(until: now() + span)
    }
}
