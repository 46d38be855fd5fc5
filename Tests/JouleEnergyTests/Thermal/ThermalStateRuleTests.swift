@testable import JouleHardware
@testable import JouleEnergy
import Testing

@Suite struct ThermalStateRuleTests {
    static func zone(_ t: Double?, trips: [(TripPoint.Kind, Double)], mode: String? = nil) -> ThermalZone {
        ThermalZone(
            name: "thermal_zone0", type: "x86_pkg_temp", temperatureC: t, mode: mode,
            trips: trips.enumerated().map { TripPoint(index: $0.offset, kind: $0.element.0, temperatureC: $0.element.1, hysteresisC: nil) })
    }

    // Critical 100, passive 90: fair from 80, serious from 90, critical from 95.
    @Test(arguments: [(79.9, ThermalState.nominal), (80, .fair), (89.9, .fair), (90, .serious), (94.9, .serious), (95, .critical), (120, .critical)])
    func passiveAndCritical(t: Double, expected: ThermalState) {
        let readings = ThermalReadings(zones: [Self.zone(t, trips: [(.passive, 90), (.critical, 100)])])
        #expect(ThermalStateRule.evaluate(readings).state == expected)
    }

    // No passive trip: P = C − 15 = 85; fair from 75.
    @Test(arguments: [(74, ThermalState.nominal), (75, .fair), (85, .serious), (95, .critical)])
    func criticalOnly(t: Double, expected: ThermalState) {
        #expect(ThermalStateRule.evaluate(ThermalReadings(zones: [Self.zone(t, trips: [(.critical, 100)])])).state == expected)
    }

    @Test func activeAndHotTripsVote() {
        let active = ThermalReadings(zones: [Self.zone(50, trips: [(.active, 45), (.critical, 110)])])
        #expect(ThermalStateRule.evaluate(active).state == .fair)
        let hot = ThermalReadings(zones: [Self.zone(70, trips: [(.hot, 70), (.critical, 110)])])
        #expect(ThermalStateRule.evaluate(hot).state == .critical)
    }

    @Test func zonesWithoutTripsDisabledOrBrokenDoNotVote() {
        let readings = ThermalReadings(zones: [
            Self.zone(150, trips: []),
            Self.zone(150, trips: [(.critical, 100)], mode: "disabled"),
            Self.zone(nil, trips: [(.critical, 100)]),
        ])
        let assessment = ThermalStateRule.evaluate(readings)
        #expect(assessment.state == .nominal)
        #expect(assessment.cause == nil)
        #expect(assessment.votes.isEmpty)
    }

    @Test(arguments: [(0, ThermalState.nominal), (1, .fair), (5, .serious), (8, .critical), (10, .critical)])
    func processorCoolingDeviceVotes(cur: Int, expected: ThermalState) {
        let readings = ThermalReadings(coolingDevices: [
            CoolingDevice(name: "cooling_device0", type: "Processor", curState: cur, maxState: 10),
            CoolingDevice(name: "cooling_device1", type: "Fan", curState: 10, maxState: 10),
        ])
        let assessment = ThermalStateRule.evaluate(readings)
        #expect(assessment.state == expected)
        #expect(assessment.cause == (expected == .nominal ? nil : "cooling_device0"))
    }

    @Test func worstInputWinsAndIsTheCause() {
        var hotZone = Self.zone(96, trips: [(.passive, 90), (.critical, 100)])
        hotZone.name = "thermal_zone7"
        let readings = ThermalReadings(
            zones: [Self.zone(81, trips: [(.passive, 90), (.critical, 100)]), hotZone],
            coolingDevices: [CoolingDevice(name: "cooling_device0", type: "Processor", curState: 6, maxState: 10)],
            hwmon: [HwmonSensor(device: "hwmon3", chip: "coretemp", input: "temp1", label: nil, temperatureC: 60, maxC: 80, criticalC: 100, error: nil)])
        let assessment = ThermalStateRule.evaluate(readings)
        #expect(assessment.state == .critical)
        #expect(assessment.cause == "thermal_zone7")
        #expect(assessment.votes.map(\.state) == [.fair, .critical, .nominal, .serious])
    }

    @Test func unusedZeroTripsDoNotVote() {
        // x86_pkg_temp exposes two passive trips at 0 °C that the firmware does not use.
        let readings = ThermalReadings(zones: [Self.zone(55, trips: [(.passive, 0), (.passive, 0)])])
        #expect(ThermalStateRule.evaluate(readings).state == .nominal)
        #expect(ThermalStateRule.thresholds(for: readings.zones[0]) == nil)
        let mixed = ThermalReadings(zones: [Self.zone(55, trips: [(.passive, 0), (.critical, 100)])])
        #expect(ThermalStateRule.evaluate(mixed).state == .nominal)
    }

    @Test func hysteresisIsAtLeastTwoDegrees() {
        let zone = ThermalZone(
            name: "z", trips: [
                TripPoint(index: 0, kind: .passive, temperatureC: 90, hysteresisC: 0),
                TripPoint(index: 1, kind: .critical, temperatureC: 100, hysteresisC: 5),
            ])
        #expect(ThermalStateRule.thresholds(for: zone)?.hysteresisC == 5)
        #expect(ThermalThresholds(fairC: 1, seriousC: 2, criticalC: 3, hysteresisC: 0.5).hysteresisC == 2)
    }
}
