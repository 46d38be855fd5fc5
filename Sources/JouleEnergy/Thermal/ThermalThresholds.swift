/// The temperatures at which one thermal input enters each state, derived from its trip points
/// (or hwmon limits). A nil threshold means the input cannot reach that state by temperature.
public struct ThermalThresholds: Sendable, Hashable {
    public var fairC: Double?
    public var seriousC: Double?
    public var criticalC: Double?
    /// How far below a threshold the temperature must fall before the state steps down:
    /// the largest trip hysteresis involved, and never less than 2 °C.
    public var hysteresisC: Double

    public init(fairC: Double?, seriousC: Double?, criticalC: Double?, hysteresisC: Double = ThermalThresholds.minimumHysteresisC) {
        self.fairC = fairC
        self.seriousC = seriousC
        self.criticalC = criticalC
        self.hysteresisC = max(hysteresisC, Self.minimumHysteresisC)
    }

    public static let minimumHysteresisC = 2.0

    /// The state this input is in at `temperatureC`, rising.
    public func state(at temperatureC: Double) -> ThermalState {
        if let criticalC, temperatureC >= criticalC { return .critical }
        if let seriousC, temperatureC >= seriousC { return .serious }
        if let fairC, temperatureC >= fairC { return .fair }
        return .nominal
    }

    /// The threshold that starts `state`, if any.
    public func threshold(for state: ThermalState) -> Double? {
        switch state {
        case .nominal: nil
        case .fair: fairC
        case .serious: seriousC
        case .critical: criticalC
        }
    }

    /// Distance in °C from `temperatureC` to the nearest threshold, for adaptive polling.
    public func distance(from temperatureC: Double) -> Double? {
        [fairC, seriousC, criticalC].compactMap { $0.map { abs($0 - temperatureC) } }.min()
    }
}
