/// A condition a transfer can be waiting for. The raw values are the binding words of
/// `waitingFor` in the transfer JSON, and the cases are declared in the order they are listed.
public enum TransferCondition: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// A line power source is online.
    case ac
    /// The default route is not metered.
    case unmetered
    /// The composite battery is above the low threshold, or there is no battery.
    case battery
    /// Low Power Mode is off.
    case lowPowerMode
    /// The thermal state allows it: at most `fair` for discretionary transfers, below
    /// `critical` for the rest.
    case thermal
    /// The destination's file system has room for the rest plus a reserve.
    case storage
    /// The earliest begin time has not come yet.
    case beginAfter
    /// Another transfer of the same batch is not ready (decided by the scheduler, which sees
    /// the whole batch; `TransferConditions.unmet` never returns it).
    case batch

    public var description: String { rawValue }

    /// Declaration order, which is the order `waitingFor` lists them in.
    public static func < (lhs: TransferCondition, rhs: TransferCondition) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
