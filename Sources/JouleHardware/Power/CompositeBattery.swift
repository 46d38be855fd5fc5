/// The system's batteries seen as one, as UPower's display device: summed energies and rates,
/// a capacity-weighted percentage, and one state (discharging wins over charging over the rest).
public struct CompositeBattery: Sendable, Hashable {
    public var percentage: Double?
    public var energyWh: Double?
    public var energyFullWh: Double?
    public var energyRateW: Double?
    public var state: PowerSupplyState
    public var timeToEmptyS: Int?
    public var timeToFullS: Int?

    public init(
        percentage: Double?, energyWh: Double?, energyFullWh: Double?, energyRateW: Double?,
        state: PowerSupplyState, timeToEmptyS: Int?, timeToFullS: Int?
    ) {
        self.percentage = percentage
        self.energyWh = energyWh
        self.energyFullWh = energyFullWh
        self.energyRateW = energyRateW
        self.state = state
        self.timeToEmptyS = timeToEmptyS
        self.timeToFullS = timeToFullS
    }
}
