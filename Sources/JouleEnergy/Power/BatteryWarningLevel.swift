import JouleHardware

/// UPower's display-device warning level, from the composite: only while it discharges,
/// by percentage (UPower's defaults: low 20 %, critical 5 %, action 2 %).
public enum BatteryWarningLevel: String, Sendable, Hashable, CaseIterable {
    case none, low, critical, action

    public static let lowPercent = 20.0
    public static let criticalPercent = 5.0
    public static let actionPercent = 2.0

    public static func evaluate(
        _ composite: CompositeBattery?, low: Double = lowPercent, critical: Double = criticalPercent,
        action: Double = actionPercent
    ) -> BatteryWarningLevel {
        guard let composite, composite.state == .discharging, let percentage = composite.percentage else {
            return .none
        }
        if percentage <= action { return .action }
        if percentage <= critical { return .critical }
        if percentage <= low { return .low }
        return .none
    }
}
