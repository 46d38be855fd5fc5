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
}

extension JouleClock {
    /// Suspends for `span` from now, or throws `CancellationError` when the task is cancelled.
    public func sleep(for span: Duration) async throws {
        try await sleep(until: now() + span)
    }
}
