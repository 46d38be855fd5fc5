/// What a transfer asked of its environment before it may run. `discretionary` implies the
/// rest (AC, unmetered, not Low Power Mode, thermal ≤ fair, battery not low); without it a
/// transfer needs only the network it asked for and thermal below critical.
public struct TransferRequirements: Sendable, Hashable {
    public var discretionary: Bool
    /// Never on a metered network (`--unmetered-only`, `allowsExpensiveNetworkAccess = false`).
    public var unmeteredOnly: Bool
    /// Only on AC (`--require-ac`).
    public var requireAC: Bool

    public init(discretionary: Bool = false, unmeteredOnly: Bool = false, requireAC: Bool = false) {
        self.discretionary = discretionary
        self.unmeteredOnly = unmeteredOnly
        self.requireAC = requireAC
    }
}
