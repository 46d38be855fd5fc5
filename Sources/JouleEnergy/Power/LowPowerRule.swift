import JouleHardware

/// Low Power Mode at one instant: on while the composite discharges at or below the threshold
/// (20 % unless configured),
/// unless the user forced it on or off.
public enum LowPowerRule {
    public static let thresholdPercent = 20.0

    public static func evaluate(
        _ supplies: PowerSupplies, override: LowPowerOverride, thresholdPercent: Double = thresholdPercent
    ) -> Bool {
        decide(override: override, automatic: automatic(supplies.composite, thresholdPercent: thresholdPercent))
    }

    /// The automatic decision alone.
    public static func automatic(_ composite: CompositeBattery?, thresholdPercent: Double = thresholdPercent) -> Bool {
        guard let composite, composite.state == .discharging, let percentage = composite.percentage else {
            return false
        }
        return percentage <= thresholdPercent
    }

    /// The override wins; auto leaves it to the automatic decision.
    public static func decide(override: LowPowerOverride, automatic: Bool) -> Bool {
        switch override {
        case .on: true
        case .off: false
        case .auto: automatic
        }
    }
}
