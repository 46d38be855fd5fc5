/// The battery warning levels low, critical and action, in percent of the composite while it
/// discharges (UPower's defaults: 20, 5, 2). Written `20,5,2` on the command line.
public struct BatteryWarningThresholds: Sendable, Hashable {
    public var low: Double
    public var critical: Double
    public var action: Double

    public static let upower = BatteryWarningThresholds(
        low: BatteryWarningLevel.lowPercent, critical: BatteryWarningLevel.criticalPercent,
        action: BatteryWarningLevel.actionPercent)

    public init(low: Double, critical: Double, action: Double) {
        self.low = low
        self.critical = critical
        self.action = action
    }

    public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
        public var spec: String
        public var description: String { "expected three percentages, low ≥ critical ≥ action, like 20,5,2, not \"\(spec)\"" }
    }

    /// `low,critical,action`, each 0–100, in that order of size.
    public init(spec: String) throws(SpecError) {
        let values = spec.split(separator: ",").map { part in
            Double(String(part.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()))
        }
        guard values.count == 3, let low = values[0], let critical = values[1], let action = values[2],
              low <= 100, low >= critical, critical >= action, action >= 0
        else { throw SpecError(spec: spec) }
        self.init(low: low, critical: critical, action: action)
    }
}
