/// How a charge limit is enforced: `status --json`'s `chargeLimit.source`.
public enum ChargeLimitSource: String, Sendable, Hashable {
    /// The firmware holds it through the thresholds.
    case firmware
    /// Joule holds it (or its start) by switching `charge_behaviour`, as long as it runs.
    case emulated
    /// Nothing limits charging.
    case none
}
