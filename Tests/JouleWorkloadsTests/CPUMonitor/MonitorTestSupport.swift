import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleWorkloads

/// A clock the test moves by hand; `sleep` jumps straight to the deadline and runs `onSleep`
/// first, so a whole `run()` plays out instantly and deterministically. Time starts at 0.
final class JumpingClock: JouleClock {
    private let time = Locked<Double>(0)
    private let hook = Locked<(@Sendable (Double) -> Void)?>(nil)

    func now() -> Double { time.withLock { $0 } }
    func set(_ seconds: Double) { time.withLock { $0 = seconds } }
    func advance(_ span: Duration) { time.withLock { $0 = $0 + span } }
    func onSleep(_ body: @escaping @Sendable (Double) -> Void) { hook.withLock { $0 = body } }

    /// Sleeping to or past this time throws CancellationError, as a cancelled task's sleep does.
    let cancelAt = Locked<Double?>(nil)

    func sleep(until deadline: Double) async throws {
        try Task.checkCancellation()
        if let cancelAt = cancelAt.withLock({ $0 }), deadline >= cancelAt { throw CancellationError() }
        hook.withLock { $0 }?(deadline)
        time.withLock { $0 = max($0, deadline) }
    }
}

/// A monitor identity unlike any fixture process: pid 9000, parent 8999, uid 1000, not root.
let testMonitor = SafetyRules(pid: 9000, ancestors: [8999], uid: 1000, isRoot: false)

func makeConfiguration(
    limit: Double = 50, window: Duration = .seconds(10), action: CPUMonitorAction = .kill, interval: Duration = .seconds(1),
    selectors: ProcessSelectors, dryRun: Bool = false
) -> CPUMonitorConfiguration {
    var configuration = CPUMonitorConfiguration()
    configuration.limitPercent = limit
    configuration.window = window
    configuration.action = action
    configuration.interval = interval
    configuration.selectors = selectors
    configuration.dryRun = dryRun
    return configuration
}

extension Array where Element == CPUMonitorEvent {
    var reports: [ResourceReport] {
        compactMap { if case .violation(let report, _) = $0 { report } else { nil } }
    }
    var protections: [Protection] {
        compactMap { if case .protected(_, let reason) = $0 { reason } else { nil } }
    }
    var exits: [Int32] {
        compactMap { if case .exited(let identity, _) = $0 { identity.pid } else { nil } }
    }
    var watched: [Int32] {
        compactMap { if case .watching(let facts) = $0 { facts.pid } else { nil } }
    }
}
