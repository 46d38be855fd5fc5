import JouleHardware

/// Low Power Mode at one instant: on while the composite discharges at or below 20 %,
/// unless the user forced it on or off.
public enum LowPowerRule {
    public static let thresholdPercent = 20.0

    public static func evaluate(_ supplies: PowerSupplies, override: LowPowerOverride) -> Bool {
        switch override {
        case .on: return true
        case .off: return false
        case .auto: return automatic(supplies.composite)
        }
    }

    /// The automatic decision alone.
    public static func automatic(_ composite: CompositeBattery?) -> Bool {
        guard let composite, composite.state == .discharging, let percentage = composite.percentage else {
            return false
        }
        return percentage <= thresholdPercent
    }
}
