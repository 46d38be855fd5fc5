/// What the host draws, measured by its batteries while they alone power it. Reuses the rate
/// that `PowerSupplyParser` already derives (|power_now|, else |current_now| × the design
/// voltage, as UPower does), so there is one battery parser.
public struct BatteryDischargePower: Sendable, Hashable {
    public var watts: Double
    /// The batteries whose rates were added, e.g. `["BAT0"]`.
    public var batteries: [String]

    public init(watts: Double, batteries: [String]) {
        self.watts = watts
        self.batteries = batteries
    }

    /// Where the figure comes from, for reports.
    public var source: String { "battery" }

    /// nil unless the machine runs on its own batteries: some discharging, no line source
    /// online (on a weak charger the battery covers only part of the draw), and every
    /// discharging battery reporting a rate above 0 (firmware that reports 0 while discharging
    /// has no figure, and 0 W would be a lie). A UPS is left out: it feeds the whole desk, not
    /// this host alone.
    public init?(_ supplies: PowerSupplies) {
        guard !supplies.lineOnline else { return nil }
        let discharging = supplies.batteries.filter { !$0.isUPS && !$0.isPeripheral && $0.state == .discharging }
        guard !discharging.isEmpty else { return nil }
        var total = 0.0
        for battery in discharging {
            guard let rate = battery.energyRateW, rate > 0 else { return nil }
            total += rate
        }
        watts = total
        batteries = discharging.map(\.name)
    }
}
