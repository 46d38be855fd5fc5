import Testing

@testable import JouleHardware

@Suite struct PowerSupplyParserTests {
    static func device(_ name: String, _ attributes: [String: String], syspath: String? = nil) -> DeviceSnapshot {
        DeviceSnapshot(
            subsystem: "power_supply", sysname: name,
            syspath: syspath ?? "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0A:00/power_supply/\(name)",
            attributes: attributes.mapValues { .value($0) })
    }

    static func battery(_ extra: [String: String]) -> [String: String] {
        var attributes = ["type": "Battery", "present": "1", "status": "Discharging"]
        for (key, value) in extra { attributes[key] = value }
        return attributes
    }

    @Test func chargeThresholdsAreReadAndGarbageIsNullWithItsAttributeInError() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery([
                "capacity": "50", "charge_control_start_threshold": "40", "charge_control_end_threshold": "-5",
                "charge_behaviour": "[auto] inhibit-charge",
            ]))
        ])
        let battery = try #require(parsed.batteries.first)
        #expect(battery.chargeLimit == ChargeLimitReading(
            start: 40, end: nil, behaviour: "auto", supported: ["start", "end", "auto", "inhibit-charge"], source: .firmware))
        #expect(battery.error?.contains("charge_control_end_threshold: not a percentage 0-100: '-5'") == true)
    }

    @Test func energyUnitsGiveWattHoursAndEstimates() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery([
                "energy_now": "30000000", "energy_full": "60000000", "energy_full_design": "64000000",
                "power_now": "-10000000", "voltage_now": "11800000", "capacity": "50", "cycle_count": "12",
                "technology": "Li-poly", "model_name": "5B10W13930", "manufacturer": "Sunwoda",
            ]))
        ])
        let battery = try #require(parsed.batteries.first)
        #expect(battery.energyWh == 30)
        #expect(battery.energyFullWh == 60)
        #expect(battery.energyFullDesignWh == 64)
        #expect(battery.energyRateW == 10)  // |power_now|
        #expect(battery.voltageV == 11.8)
        #expect(battery.timeToEmptyS == 10800)
        #expect(battery.timeToFullS == nil)
        #expect(battery.healthPercent == 93.75)
        #expect(battery.cycleCount == 12)
        #expect(battery.technology == "lithium-polymer")
        #expect(parsed.onBattery)
        #expect(parsed.composite?.timeToEmptyS == 10800)
    }

    @Test func chargeUnitsUseDesignVoltageChain() throws {
        // voltage_max_design wins over voltage_min_design and voltage_now.
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery([
                "status": "Charging", "charge_now": "2000000", "charge_full": "4000000",
                "current_now": "1000000", "voltage_max_design": "8800000", "voltage_min_design": "7600000",
                "voltage_now": "8000000",
            ]))
        ])
        let battery = try #require(parsed.batteries.first)
        #expect(battery.energyWh == 17.6)
        #expect(battery.energyFullWh == 35.2)
        #expect(battery.energyRateW == 8.8)
        #expect(battery.percentage == 50)
        #expect(battery.timeToFullS == 7200)
    }

    @Test func chargeUnitsWithoutAnyVoltageKeepPercentageButNoEnergy() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["charge_now": "1000000", "charge_full": "4000000", "current_now": "500000"]))
        ])
        let battery = try #require(parsed.batteries.first)
        #expect(battery.percentage == 25)
        #expect(battery.energyWh == nil)
        #expect(battery.energyRateW == nil)
        #expect(battery.timeToEmptyS == nil)
    }

    @Test func implausibleRateAndEstimateAreDropped() throws {
        let huge = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["energy_now": "30000000", "energy_full": "60000000", "power_now": "301000000"]))
        ])
        #expect(huge.batteries.first?.energyRateW == nil)
        #expect(huge.batteries.first?.timeToEmptyS == nil)
        // 60 Wh at 0.1 W is 600 h: beyond 240 h, so no estimate.
        let tiny = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["energy_now": "60000000", "energy_full": "60000000", "power_now": "100000"]))
        ])
        #expect(tiny.batteries.first?.energyRateW == 0.1)
        #expect(tiny.batteries.first?.timeToEmptyS == nil)
    }

    @Test func negativeCurrentMeansDischarging() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("axp20x-battery", Self.battery(["status": "Charging", "capacity": "60", "current_now": "-350000"]))
        ])
        #expect(parsed.batteries.first?.state == .discharging)
    }

    @Test func peripheralsAndAbsentBatteriesStayOutOfTheComposite() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("hidpp_battery_0", ["type": "Battery", "scope": "Device", "status": "Discharging", "capacity": "10"]),
            Self.device("BAT1", Self.battery(["present": "0", "energy_now": "0"])),
        ])
        #expect(parsed.batteries.isEmpty)
        #expect(parsed.peripherals.map(\.name) == ["hidpp_battery_0"])
        #expect(parsed.composite == nil)
        #expect(!parsed.onBattery)
    }

    @Test func garbageIsNullNeverZero() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery([
                "energy_now": "garbage", "energy_full": "", "power_now": "0x10", "capacity": "nan",
                "cycle_count": "many", "voltage_now": "inf",
            ]))
        ])
        let battery = try #require(parsed.batteries.first)
        #expect(battery.energyWh == nil)
        #expect(battery.energyFullWh == nil)
        #expect(battery.energyRateW == nil)
        #expect(battery.percentage == nil)
        #expect(battery.cycleCount == nil)
        #expect(battery.voltageV == nil)
    }

    @Test func vendorStringsLoseInvalidAndControlCharacters() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["model_name": "AB\u{FFFD}C12\u{01}3", "manufacturer": "\u{7F}\u{1B}"]))
        ])
        #expect(parsed.batteries.first?.model == "ABC123")
        #expect(parsed.batteries.first?.manufacturer == nil)
    }

    @Test func compositeSumsAndWeightsByCapacity() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["energy_now": "10000000", "energy_full": "20000000", "power_now": "0", "status": "Unknown"])),
            Self.device("BAT1", Self.battery(["energy_now": "30000000", "energy_full": "80000000", "power_now": "8000000"])),
            Self.device("AC", ["type": "Mains", "online": "0"]),
        ])
        let composite = try #require(parsed.composite)
        #expect(composite.energyWh == 40)
        #expect(composite.energyFullWh == 100)
        #expect(composite.percentage == 40)
        #expect(composite.energyRateW == 8)
        #expect(composite.state == .discharging)
        #expect(composite.timeToEmptyS == 18000)
        #expect(parsed.onBattery)
    }

    @Test func compositeWithAnUnknownEnergyHasNoEnergySum() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("BAT0", Self.battery(["energy_now": "10000000", "energy_full": "20000000", "capacity": "50"])),
            Self.device("BAT1", Self.battery(["capacity": "30"])),
        ])
        let composite = try #require(parsed.composite)
        #expect(composite.energyWh == nil)
        #expect(composite.percentage == 40)  // plain average when energies are not all known
    }

    @Test func upsIsTheCompositeAndALineSource() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("ups0", ["type": "UPS", "status": "Discharging", "capacity": "76", "time_to_empty_now": "1560"]),
        ])
        #expect(parsed.composite?.percentage == 76)
        #expect(parsed.composite?.timeToEmptyS == 1560)
        #expect(parsed.lineSources.map(\.kind) == ["UPS"])
        #expect(parsed.lineSources.first?.online == false)
        #expect(parsed.onBattery)
    }

    @Test func lineSourcesAndIgnoredTypes() throws {
        let parsed = PowerSupplyParser.parse([
            Self.device("AC", ["type": "Mains", "online": "1"]),
            Self.device("ucsi-source-psy-USBC000:001", ["type": "USB", "online": "0"]),
            Self.device("bms", ["type": "BMS", "capacity": "77"]),
            Self.device("pump", ["type": "Nothing attached"]),
        ])
        #expect(parsed.lineSources.map(\.name) == ["AC", "ucsi-source-psy-USBC000:001"])
        #expect(parsed.lineSources.map(\.online) == [true, false])
        #expect(parsed.batteries.isEmpty)
    }

    @Test func statusWordsAreCaseInsensitive() {
        #expect(PowerSupplyState(status: "Not Charging") == .notCharging)
        #expect(PowerSupplyState(status: "not charging") == .notCharging)
        #expect(PowerSupplyState(status: "FULL") == .full)
        #expect(PowerSupplyState(status: nil) == .unknown)
        #expect(PowerSupplyState(status: "Bogus") == .unknown)
    }

    @Test func failedReadsAreUnknown() throws {
        let device = DeviceSnapshot(
            subsystem: "power_supply", sysname: "BAT0", syspath: "/sys/devices/BAT0",
            attributes: ["type": .value("Battery"), "status": .value("Discharging"),
                         "energy_now": .failed(.noData), "energy_full": .value("50000000"), "capacity": .failed(.ioError)])
        let battery = try #require(PowerSupplyParser.parse([device]).batteries.first)
        #expect(battery.energyWh == nil)
        #expect(battery.percentage == nil)
        #expect(battery.energyFullWh == 50)
    }
}

/// Found by the bad-input matrix: a power_supply number beyond the kernel's `int` was shown
/// as a battery holding 10^24 Wh.
@Suite struct SysfsValueBoundsTests {
    @Test(arguments: ["2147483648", "-2147483648", "99999999999", "999999999999999999999999999999"])
    func beyondKernelIntIsUnknown(_ text: String) {
        #expect(SysfsValue.number(text) == nil)
    }

    @Test(arguments: [("2147483647", 2_147_483_647.0), ("-787000", -787_000.0), ("48000000", 48_000_000.0)])
    func kernelRangeIsKept(_ text: String, _ value: Double) {
        #expect(SysfsValue.number(text) == value)
    }

    @Test func hugeEnergyIsNotShownAsEnergy() {
        let device = DeviceSnapshot(
            subsystem: "power_supply", sysname: "BAT0", syspath: "/sys/devices/BAT0",
            attributes: [
                "type": .value("Battery"), "present": .value("1"), "energy_now": .value("999999999999999999999999"),
                "energy_full": .value("56500000"),
            ])
        let battery = PowerSupplyParser.battery(device)
        #expect(battery != nil)
        #expect(battery?.energyWh == nil)
        #expect(battery?.percentage == nil)
    }
}
