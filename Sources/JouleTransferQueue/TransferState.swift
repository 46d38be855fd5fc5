/// Where a transfer stands. `waiting`, `running`, `suspended` and `retrying` are live (it will
/// still move); `completed`, `failed` and `cancelled` are final.
public enum TransferState: Sendable, Hashable, CustomStringConvertible {
    /// Not started, or not restarted: the unmet conditions, as their JSON words (`ac`,
    /// `unmetered`, `battery`, `lowPowerMode`, `thermal`, `storage`, `beginAfter`, `batch`),
    /// in that order.
    case waiting(unmet: [TransferCondition])
    case running
    /// Stopped without counting an attempt: a condition was lost mid-transfer (`until` nil:
    /// resume when conditions return) or throughput fell below the floor (`until`: not before
    /// then, Unix seconds).
    case suspended(until: Double?)
    /// An attempt failed; the next one is due at `next` (Unix seconds).
    case retrying(next: Double)
    case completed
    case failed(reason: String)
    case cancelled

    /// The state's JSON word: `waiting`, `running`, …
    public var name: String {
        switch self {
        case .waiting: "waiting"
        case .running: "running"
        case .suspended: "suspended"
        case .retrying: "retrying"
        case .completed: "completed"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }

    /// Every state's word, live ones first.
    public static let names = ["waiting", "running", "suspended", "retrying", "completed", "failed", "cancelled"]
    /// The words of live states.
    public static let liveNames = ["waiting", "running", "suspended", "retrying"]

    /// Whether the transfer may still move (and so holds its destination).
    public var isLive: Bool { Self.liveNames.contains(name) }

    /// Whether this is a final state.
    public var isFinished: Bool { !isLive }

    /// When the next attempt may start, for `retrying` and a timed `suspended`.
    public var nextAttempt: Double? {
        switch self {
        case .retrying(let next): next
        case .suspended(let until): until
        default: nil
        }
    }

    /// The unmet conditions while waiting; empty otherwise.
    public var waitingFor: [TransferCondition] { if case .waiting(let unmet) = self { unmet } else { [] } }

    /// The `reason` of the transfer object: why it is not moving or why it ended badly. The
    /// unmet conditions while waiting (`ac, unmetered`), else `error` (the failure's reason, or
    /// the last attempt's error while retrying or suspended); nil while running, once completed
    /// or cancelled, and while waiting for nothing.
    public func reason(error: String?) -> String? {
        switch self {
        case .waiting(let unmet): unmet.isEmpty ? nil : unmet.map(\.rawValue).joined(separator: ", ")
        case .failed(let reason): reason
        case .suspended, .retrying: error
        case .running, .completed, .cancelled: nil
        }
    }

    public var description: String { name }
}
