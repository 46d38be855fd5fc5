import JouleHardware
import JouleEnergy
import JouleTransferQueue
import JouleHistory

/// Rows for the history tests: a discharging laptop at `percentage`, two zones.
package enum HistoryRows {
    package static func sample(
        _ time: Double, trigger: HistoryTrigger = .minute, percentage: Double? = 50, state: PowerSupplyState? = .discharging,
        power: Double? = 8, lowPowerMode: Bool = false, source: LowPowerModeSource = .auto, reason: String? = nil,
        thermal: ThermalState = .nominal, celsius: [Double?] = [45, 38], line: Bool? = false
    ) -> HistorySample {
        HistorySample(
            timestamp: time, trigger: trigger, percentage: percentage, chargeState: state, energyRateW: power.map { $0 + 0.5 },
            powerW: power, powerSource: power == nil ? nil : "rapl:psys", lineOnline: line, lowPowerMode: lowPowerMode,
            lowPowerModeSource: source, lowPowerModeReason: reason, thermalState: thermal,
            temperatures: celsius.enumerated().map { index, value in
                HistoryTemperature(sensor: "thermal_zone\(index)", label: index == 0 ? "x86_pkg_temp" : "acpitz", celsius: value)
            })
    }

    package static func transfer(_ time: Double, owner: UInt32, id: String = Transfer.newID()) -> HistoryEntry {
        HistoryEntry(
            timestamp: time, kind: .transfer, id: id, subtype: "completed", subject: "/home/u/a.iso", bytes: 1_000, ownerUID: owner)
    }
}
