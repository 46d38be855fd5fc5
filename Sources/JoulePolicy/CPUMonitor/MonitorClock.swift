import Foundation

/// Time for the CPU monitor, injected so tests drive the window arithmetic and the
/// throttle duty cycle without sleeping.
public protocol MonitorClock: Sendable {
    /// Monotonic seconds from an arbitrary origin.
    func now() -> Double
    /// Wall-clock time, for report dates.
    func wallTime() -> Date
    /// Returns at `deadline` (monotonic seconds) or throws CancellationError.
    func sleep(until deadline: Double) async throws
}

/// The real clock: ContinuousClock for intervals, the system clock for dates.
public struct SystemMonitorClock: MonitorClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let elapsed = origin.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
    }

    public func wallTime() -> Date { Date() }

    public func sleep(until deadline: Double) async throws {
        let delay = deadline - now()
        if delay > 0 {
            try await Task.sleep(for: .seconds(delay))
        } else {
            try Task.checkCancellation()
        }
    }
}
