/// The order in which ready transfers start when conditions open: high first.
public enum TransferPriority: String, Sendable, Hashable, CaseIterable, Comparable {
    case high, normal, low

    /// 0 for high, 2 for low: the store's sort key.
    public var rank: Int {
        switch self {
        case .high: 0
        case .normal: 1
        case .low: 2
        }
    }

    /// `high < normal`: high sorts first.
    public static func < (lhs: TransferPriority, rhs: TransferPriority) -> Bool { lhs.rank < rhs.rank }
}
