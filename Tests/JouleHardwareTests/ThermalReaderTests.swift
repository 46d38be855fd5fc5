import Testing
@testable import JouleHardware

/// Builds thermal snapshots the way the kernel lays them out.
enum ThermalSnapshots {
    static func zone(_ n: Int, type: String, temp: AttributeRead?, mode: String? = "enabled", trips: [(String, String, String?)] = []) -> DeviceSnapshot {
        var attributes: [String: AttributeRead] = ["type": .value(type)]
        if let temp { attributes["temp"] = temp }
        if let mode { attributes["mode"] = .value(mode) }
        for (i, trip) in trips.enumerated() {
            attributes["trip_point_\(i)_type"] = .value(trip.0)
            attributes["trip_point_\(i)_temp"] = .value(trip.1)
            if let hyst = trip.2 { attributes["trip_point_\(i)_hyst"] = .value(hyst) }
        }
        return DeviceSnapshot(
            subsystem: "thermal", sysname: "thermal_zone\(n)",
            syspath: "/sys/devices/virtual/thermal/thermal_zone\(n)", attributes: attributes)
    }

    static func cooling(_ n: Int, type: String, cur: String, max: String) -> DeviceSnapshot {
        DeviceSnapshot(
            subsystem: "thermal", sysname: "cooling_device\(n)",
            syspath: "/sys/devices/virtual/thermal/cooling_device\(n)",
            attributes: ["type": .value(type), "cur_state": .value(cur), "max_state": .value(max)])
    }
}

@Suite struct ThermalReaderTests {
    @Test func zonesTripsAndOrdering() {
        let readings = ThermalReader.parse(
            thermal: [
                ThermalSnapshots.zone(10, type: "iwlwifi_1", temp: .value("41000")),
                ThermalSnapshots.zone(2, type: "x86_pkg_temp", temp: .value("67500"),
                                      trips: [("passive", "95000", "2000"), ("critical", "105000", nil)]),
                ThermalSnapshots.cooling(0, type: "Processor", cur: "3", max: "10"),
            ],
            hwmon: [])
        #expect(readings.zones.map(\.name) == ["thermal_zone2", "thermal_zone10"])
        let zone = readings.zones[0]
        #expect(zone.temperatureC == 67.5)
        #expect(zone.error == nil)
        #expect(zone.trips == [
            TripPoint(index: 0, kind: .passive, temperatureC: 95, hysteresisC: 2),
            TripPoint(index: 1, kind: .critical, temperatureC: 105, hysteresisC: nil),
        ])
        #expect(readings.coolingDevices == [CoolingDevice(name: "cooling_device0", type: "Processor", curState: 3, maxState: 10)])
    }

    @Test(arguments: [
        (AttributeRead.failed(.noData), "temp: read failed: No data available (ENODATA)"),
        (.failed(.tryAgain), "temp: read failed: Resource temporarily unavailable (EAGAIN)"),
        (.value("-274000"), "temp: invalid reading -274000 (below absolute zero)"),
        (.value(""), "temp: empty"),
        (.value("garbage"), "temp: not a number: \"garbage\""),
        (.value("2147483647"), "temp: implausible reading 2147483647"),
    ])
    func badTemperaturesAreNullWithError(read: AttributeRead, message: String) {
        let readings = ThermalReader.parse(
            thermal: [
                ThermalSnapshots.zone(0, type: "acpitz", temp: read),
                ThermalSnapshots.zone(1, type: "cpu-thermal", temp: .value("48312")),
            ],
            hwmon: [])
        #expect(readings.zones[0].temperatureC == nil)
        #expect(readings.zones[0].error == message)
        #expect(readings.zones[1].temperatureC == 48.312)
        #expect(readings.zones[1].error == nil)
    }

    @Test func missingTemperatureIsAnError() {
        let readings = ThermalReader.parse(thermal: [ThermalSnapshots.zone(0, type: "acpitz", temp: nil)], hwmon: [])
        #expect(readings.zones[0].error == "temp: missing")
    }

    @Test func badTripsAndCoolingStatesAreUnknown() {
        let readings = ThermalReader.parse(
            thermal: [
                ThermalSnapshots.zone(0, type: "acpitz", temp: .value("30000"), trips: [("critical", "junk", "x")]),
                ThermalSnapshots.cooling(1, type: "Fan", cur: "-1", max: "4"),
            ],
            hwmon: [])
        #expect(readings.zones[0].trips == [TripPoint(index: 0, kind: .critical, temperatureC: nil, hysteresisC: nil)])
        #expect(readings.coolingDevices[0].curState == nil)
        #expect(readings.coolingDevices[0].maxState == 4)
        #expect(readings.coolingDevices[0].error == "cur_state: not a state: \"-1\"")
        #expect(readings.coolingDevices[0].load == nil)
    }

    @Test func hwmonMirrorsOfZonesAreNotCountedTwice() {
        let mirror = DeviceSnapshot(
            subsystem: "hwmon", sysname: "hwmon1", syspath: "/sys/devices/virtual/thermal/thermal_zone0/hwmon1",
            attributes: ["name": .value("acpitz"), "temp1_input": .value("30000")])
        let coretemp = DeviceSnapshot(
            subsystem: "hwmon", sysname: "hwmon4", syspath: "/sys/devices/platform/coretemp.0/hwmon/hwmon4",
            attributes: [
                "name": .value("coretemp"),
                "temp1_input": .value("55000"), "temp1_label": .value("Package id 0"),
                "temp1_max": .value("100000"), "temp1_crit": .value("100000"),
                "temp2_input": .failed(.noData), "temp2_label": .value("Core 0"),
            ])
        let readings = ThermalReader.parse(
            thermal: [ThermalSnapshots.zone(0, type: "acpitz", temp: .value("30000"))], hwmon: [mirror, coretemp])
        #expect(readings.hwmon.map(\.name) == ["hwmon4/temp1", "hwmon4/temp2"])
        #expect(readings.hwmon[0].label == "Package id 0")
        #expect(readings.hwmon[0].temperatureC == 55)
        #expect(readings.hwmon[0].criticalC == 100)
        #expect(readings.hwmon[1].temperatureC == nil)
        #expect(readings.hwmon[1].error == "temp2_input: read failed: No data available (ENODATA)")
    }
}
