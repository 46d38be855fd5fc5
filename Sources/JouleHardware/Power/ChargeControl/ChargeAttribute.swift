/// The power_supply attributes through which the kernel controls charging
/// (Documentation/ABI/testing/sysfs-class-power). Vendors offer different subsets: a ThinkPad
/// both thresholds, an ASUS only the end, some Chromebooks and Framework laptops only
/// `charge_behaviour`.
public enum ChargeAttribute: String, Sendable, Hashable, CaseIterable {
    /// Charging starts again only below this percentage.
    case start = "charge_control_start_threshold"
    /// Charging stops at this percentage.
    case end = "charge_control_end_threshold"
    /// `auto`, `inhibit-charge` or `force-discharge`, the current one in brackets.
    case behaviour = "charge_behaviour"
    /// The charging algorithm (`Fast`, `Standard`, `Long_Life`, …), the current one in brackets.
    case types = "charge_types"
}
