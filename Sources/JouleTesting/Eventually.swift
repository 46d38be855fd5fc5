import Foundation

/// Whether `condition` comes to hold within `timeout` seconds of real time (a bound against
/// hanging, never an assertion about speed), looking every `interval`. It sleeps with
/// Task.sleep: a test blocking a cooperative thread starves every other test on 2 cores. The
/// condition is looked at once more after the deadline, since a loaded machine may wake this
/// task late, and what it waited for may have happened meanwhile.
public func eventually(
    timeout: Double = 20, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        // Cancelled: look once more rather than spin.
        do { try await Task.sleep(for: interval) } catch { break }
    }
    return try await condition()
}
