import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
import Testing


@Suite struct LowPowerTests {
    static func composite(_ state: PowerSupplyState, _ percentage: Double?) -> CompositeBattery {
        CompositeBattery(
            percentage: percentage, energyWh: nil, energyFullWh: nil, energyRateW: nil, state: state,
            timeToEmptyS: nil, timeToFullS: nil)
    }

    @Test func automaticOnlyWhileDischargingAtOrBelowTwentyPercent() {
        #expect(LowPowerRule.automatic(Self.composite(.discharging, 20)))
        #expect(LowPowerRule.automatic(Self.composite(.discharging, 3)))
        #expect(!LowPowerRule.automatic(Self.composite(.discharging, 20.1)))
        #expect(!LowPowerRule.automatic(Self.composite(.charging, 5)))
        #expect(!LowPowerRule.automatic(Self.composite(.discharging, nil)))
        #expect(!LowPowerRule.automatic(nil))
    }

    @Test func overrideWins() {
        let low = PowerSupplies(batteries: [Battery(name: "BAT0", syspath: "/sys/devices/BAT0")], composite: Self.composite(.discharging, 10))
        #expect(LowPowerRule.evaluate(low, override: .auto))
        #expect(!LowPowerRule.evaluate(low, override: .off))
        #expect(LowPowerRule.evaluate(PowerSupplies(), override: .on))
    }

    @Test func warningLevels() {
        #expect(BatteryWarningLevel.evaluate(Self.composite(.discharging, 30)) == .none)
        #expect(BatteryWarningLevel.evaluate(Self.composite(.discharging, 20)) == .low)
        #expect(BatteryWarningLevel.evaluate(Self.composite(.discharging, 5)) == .critical)
        #expect(BatteryWarningLevel.evaluate(Self.composite(.discharging, 2)) == .action)
        #expect(BatteryWarningLevel.evaluate(Self.composite(.charging, 1)) == .none)
        #expect(BatteryWarningLevel.evaluate(nil) == .none)
    }

    @Test func storeRoundTripsAndMissingFileIsAuto() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = LowPowerOverrideStore(directory: dir + "/a/b")
        #expect(store.load() == .auto)
        try store.save(.on)
        #expect(store.load() == .on)
        try store.save(.off)
        #expect(store.load() == .off)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir + "/a/b")
        #expect(leftovers == ["lowpower"])
    }

    @Test func zoneErrorKeyOnlyWhenPresent() {
        let report = StatusReport(
            supplies: PowerSupplies(),
            thermal: ThermalReadings(zones: [
                ThermalZone(name: "thermal_zone0", type: "acpitz", temperatureC: 40),
                ThermalZone(name: "thermal_zone1", type: "iwlwifi_1", error: "temp: read failed"),
            ]),
            lowPowerOverride: .auto, cpuCores: 4, cpuUsagePercent: nil)
        let text = JSONValue.object(report.json).serialized
        #expect(text.contains(#"{"name":"thermal_zone0","type":"acpitz","temperatureC":40,"trips":[]}"#))
        #expect(text.contains(#""temperatureC":null,"error":"temp: read failed","trips":[]"#))
        #expect(text.contains(#""composite":null"#))
        #expect(text.contains(#""cpu":{"cores":4,"usagePercent":null}"#))
    }
}
