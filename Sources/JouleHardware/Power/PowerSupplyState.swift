/// Charge state of a battery or of the composite, in UPower's sense with joule's words.
public enum PowerSupplyState: String, Sendable, Hashable, CaseIterable {
    case charging
    case discharging
    case full
    /// The kernel's "Not charging" (UPower: pending-charge), e.g. held at a charge threshold.
    case notCharging = "not-charging"
    case empty
    case unknown

    /// Maps the kernel's `status` attribute, case-insensitively ("Not Charging" occurs).
    public init(status: String?) {
        switch status?.lowercased() {
        case "charging": self = .charging
        case "discharging": self = .discharging
        case "full": self = .full
        case "not charging": self = .notCharging
        case "empty": self = .empty
        default: self = .unknown
        }
    }
}
