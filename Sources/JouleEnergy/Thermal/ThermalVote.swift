/// What one input (a zone, an hwmon sensor, a Processor cooling device) says about the state.
public struct ThermalVote: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        case zone, hwmon, coolingDevice
    }

    /// Name of the input, e.g. `thermal_zone3`, `hwmon2/temp1`, `cooling_device0`.
    public var name: String
    public var source: Source
    public var state: ThermalState
    /// The input's temperature (nil for cooling devices).
    public var temperatureC: Double?
    /// The thresholds it was judged by (nil for cooling devices).
    public var thresholds: ThermalThresholds?
    /// A short human reason, e.g. `97.0 °C ≥ 95.0 °C (critical trip 100.0 °C − 5)`.
    public var reason: String

    public init(
        name: String, source: Source, state: ThermalState, temperatureC: Double?,
        thresholds: ThermalThresholds?, reason: String
    ) {
        self.name = name
        self.source = source
        self.state = state
        self.temperatureC = temperatureC
        self.thresholds = thresholds
        self.reason = reason
    }
}
