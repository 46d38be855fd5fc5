/// One battery from the power_supply class, read at one instant, with UPower's semantics.
/// Every number is nil when the kernel did not give a usable value; none is guessed.
public struct Battery: Sendable, Hashable {
    /// Kernel name, e.g. `BAT0`, `hidpp_battery_3`.
    public var name: String
    public var syspath: String
    /// `scope=Device`: a mouse, keyboard or headset battery, never part of the composite.
    public var isPeripheral: Bool
    /// A UPS (type `UPS`): UPower makes it the composite on its own.
    public var isUPS: Bool
    public var state: PowerSupplyState
    /// 0–100.
    public var percentage: Double?
    public var energyWh: Double?
    public var energyFullWh: Double?
    public var energyFullDesignWh: Double?
    /// Always positive; the state says the direction.
    public var energyRateW: Double?
    /// Present voltage (`voltage_now`, else `voltage_avg`).
    public var voltageV: Double?
    public var timeToEmptyS: Int?
    public var timeToFullS: Int?
    /// energy_full / energy_full_design, capped at 100 as UPower does.
    public var healthPercent: Double?
    public var cycleCount: Int?
    /// UPower's technology names: `lithium-ion`, `lithium-polymer`, `lead-acid`...
    public var technology: String?
    public var model: String?
    public var manufacturer: String?
    public var serial: String?
    /// Battery temperature (`temp`, tenths of °C).
    public var temperatureC: Double?
    /// The kernel's coarse `capacity_level` (Full, High, Normal, Low, Critical, Unknown).
    public var capacityLevel: String?
    /// The charge thresholds and behaviour (issue 36's `chargeLimit`).
    public var chargeLimit = ChargeLimitReading()
    /// Why attributes gave no value (`energy_now: read failed: Permission denied (EACCES)`),
    /// nil when every attribute present was read.
    public var error: String?

    public init(name: String, syspath: String, isPeripheral: Bool = false, isUPS: Bool = false, state: PowerSupplyState = .unknown) {
        self.name = name
        self.syspath = syspath
        self.isPeripheral = isPeripheral
        self.isUPS = isUPS
        self.state = state
    }
}
