import JouleHardware
import JouleEnergy

/// One row of the daemon's history: the machine's power and thermal condition at one moment
/// (or, for rows older than 30 days, averaged over an hour). Unknown values are nil, never 0.
package struct HistorySample: Sendable, Hashable {
    /// Unix seconds; an hourly row's hour start.
    package var timestamp: Double
    package var trigger: HistoryTrigger
    /// Seconds an aggregated row stands for (3600); nil for a reading of one moment.
    package var span: Double?
    /// The composite battery percentage; nil without a battery.
    package var percentage: Double?
    /// The composite battery's state; nil without a battery.
    package var chargeState: PowerSupplyState?
    /// The batteries' own energy rate (W), as the kernel reports it; nil when unreported.
    package var energyRateW: Double?
    /// The host's measured power (W) from the daemon's energy meter; nil when nothing measured it.
    package var powerW: Double?
    /// Where `powerW` comes from, e.g. `rapl:psys` or `battery`; nil with `powerW`.
    package var powerSource: String?
    /// Some line power source online; nil when the machine reports no line source.
    package var lineOnline: Bool?
    package var lowPowerMode: Bool
    package var lowPowerModeSource: LowPowerModeSource
    /// The last `powerStateDidChange` reason (`battery-low`, `manual-on`, …); nil until one came.
    package var lowPowerModeReason: String?
    package var thermalState: ThermalState
    package var temperatures: [HistoryTemperature]

    package init(
        timestamp: Double, trigger: HistoryTrigger, span: Double? = nil, percentage: Double?, chargeState: PowerSupplyState?,
        energyRateW: Double?, powerW: Double?, powerSource: String?, lineOnline: Bool?, lowPowerMode: Bool,
        lowPowerModeSource: LowPowerModeSource, lowPowerModeReason: String?, thermalState: ThermalState,
        temperatures: [HistoryTemperature]
    ) {
        self.timestamp = timestamp
        self.trigger = trigger
        self.span = span
        self.percentage = percentage
        self.chargeState = chargeState
        self.energyRateW = energyRateW
        self.powerW = powerW
        self.powerSource = powerSource
        self.lineOnline = lineOnline
        self.lowPowerMode = lowPowerMode
        self.lowPowerModeSource = lowPowerModeSource
        self.lowPowerModeReason = lowPowerModeReason
        self.thermalState = thermalState
        self.temperatures = temperatures
    }

    /// A row from the engines' last readings: the composite battery, the line sources, every
    /// thermal zone and hwmon input, and the measured power when a meter gave one.
    package init(
        timestamp: Double, trigger: HistoryTrigger, supplies: PowerSupplies?, thermal: ThermalReadings,
        lowPowerMode: Bool, lowPowerModeSource: LowPowerModeSource, lowPowerModeReason: String?,
        thermalState: ThermalState, energy: EnergySnapshot?
    ) {
        let composite = supplies?.composite
        let watts = energy?.systemWatts
        self.init(
            timestamp: timestamp, trigger: trigger, percentage: composite?.percentage, chargeState: composite?.state,
            energyRateW: composite?.energyRateW, powerW: watts, powerSource: watts == nil ? nil : energy?.origin,
            lineOnline: supplies.flatMap { $0.lineSources.isEmpty ? nil : $0.lineOnline },
            lowPowerMode: lowPowerMode, lowPowerModeSource: lowPowerModeSource, lowPowerModeReason: lowPowerModeReason,
            thermalState: thermalState, temperatures: Self.temperatures(thermal))
    }

    /// Zones by name (labelled by type), then hwmon inputs by chip and input.
    static func temperatures(_ thermal: ThermalReadings) -> [HistoryTemperature] {
        let zones = thermal.zones.filter(\.isEnabled).map {
            HistoryTemperature(sensor: $0.name, label: $0.type, celsius: $0.temperatureC)
        }
        let hwmon = thermal.hwmon.map { sensor in
            let chip = sensor.chip ?? sensor.device
            return HistoryTemperature(
                sensor: "\(chip)/\(sensor.input)", label: [chip, sensor.label].compactMap { $0 }.joined(separator: " "),
                celsius: sensor.temperatureC)
        }
        return zones + hwmon
    }

    /// The reading of `sensor` in this row, nil when the row has none or the sensor failed.
    package func celsius(_ sensor: String) -> Double? {
        temperatures.first { $0.sensor == sensor }?.celsius
    }
}
