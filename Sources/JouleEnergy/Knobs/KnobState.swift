/// What became of a knob: written for Low Power Mode, put back, left to another tool that
/// changed it since (reported once), or refused by the kernel.
public enum KnobState: Sendable, Hashable, CustomStringConvertible {
    case applied
    case restored
    case foreign
    case failed(String)

    /// `applied`, `restored`, `foreign` or `failed: REASON`.
    public var description: String {
        switch self {
        case .applied: "applied"
        case .restored: "restored"
        case .foreign: "foreign"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}
