import JouleWire
import JouleHardware
import JouleWorkloads

/// What the daemon's enforce run and CPU watches did, counted where their events arrive (on
/// their own tasks) for `/metrics` to read: the classes paused now, and the violations since
/// the daemon started. Violations outlive a SIGHUP restart of the watches, as a counter must.
final class WorkloadTally: Sendable {
    private struct Counts {
        var pausedClasses: Set<String> = []
        var violations: [CPUMonitorAction: Int] = [:]
    }

    private let counts = Locked(Counts())

    /// A pause adds its class (a rescan's pause of a class already paused changes nothing);
    /// a resume removes it.
    func record(_ action: EnforcementAction) {
        counts.withLock { counts in
            switch action.kind {
            case .pause: counts.pausedClasses.insert(action.className)
            case .resume: counts.pausedClasses.remove(action.className)
            }
        }
    }

    /// A handled violation, under the watch's action (`kill`, `throttle` or `report`).
    func recordViolation(_ report: ResourceReport) {
        guard let action = CPUMonitorAction(rawValue: report.action) else { return }
        counts.withLock { $0.violations[action, default: 0] += 1 }
    }

    /// The enforce run ended: nothing it paused is held any more.
    func enforceStopped() {
        counts.withLock { $0.pausedClasses = [] }
    }

    var pausedClasses: Int { counts.withLock { $0.pausedClasses.count } }

    /// Every action, 0 where none happened, so `rate()` has a series from the start.
    var violations: [CPUMonitorAction: Int] {
        counts.withLock { counts in
            Dictionary(uniqueKeysWithValues: CPUMonitorAction.allCases.map { ($0, counts.violations[$0] ?? 0) })
        }
    }
}
