@testable import JouleHardware
@testable import JouleEnergy
import Testing

@Suite struct ThermalStateMachineTests {
    /// Passive 90 (hyst 3), critical 100: fair ≥ 80, serious ≥ 90, critical ≥ 95.
    static func readings(_ t: Double?) -> ThermalReadings {
        ThermalReadings(zones: [
            ThermalZone(
                name: "thermal_zone1", type: "x86_pkg_temp", temperatureC: t,
                error: t == nil ? "temp: read failed: No data available (ENODATA)" : nil,
                trips: [
                    TripPoint(index: 0, kind: .passive, temperatureC: 90, hysteresisC: 3),
                    TripPoint(index: 1, kind: .critical, temperatureC: 100, hysteresisC: nil),
                ])
        ])
    }

    /// Feeds each temperature once (one second apart) and collects the states after each.
    static func run(_ machine: inout ThermalStateMachine, _ temperatures: [Double?], from start: Double = 0) -> [ThermalState] {
        temperatures.enumerated().map { i, t in
            _ = machine.update(readings(t), at: start + Double(i))
            return machine.state
        }
    }

    @Test func risesThroughEveryStateAndFallsBackWithHysteresis() {
        var machine = ThermalStateMachine(confirmations: 1)
        #expect(Self.run(&machine, [70, 80, 90, 95]) == [.nominal, .fair, .serious, .critical])
        // Critical began at 95; with 3 °C hysteresis it holds until the zone is below 92.
        #expect(Self.run(&machine, [94, 92, 91.9]) == [.critical, .critical, .serious])
        // Serious began at 90: holds until below 87; fair began at 80: holds until below 77.
        #expect(Self.run(&machine, [88, 86.9, 78, 77, 76.9]) == [.serious, .fair, .fair, .fair, .nominal])
    }

    @Test func changesCarryPreviousStateAndCause() {
        var machine = ThermalStateMachine(confirmations: 1)
        let change = machine.update(Self.readings(96), at: 0)
        #expect(change == .init(state: .critical, previous: .nominal, cause: "thermal_zone1"))
        #expect(machine.update(Self.readings(96), at: 1) == nil)
    }

    @Test func oneNoisyReadDoesNotFlipTheState() {
        var machine = ThermalStateMachine(confirmations: 2)
        #expect(Self.run(&machine, [70, 99, 70, 70]) == [.nominal, .nominal, .nominal, .nominal])
        #expect(machine.update(Self.readings(91), at: 10) == nil)
        #expect(machine.isConfirming)
        #expect(machine.update(Self.readings(91), at: 11)?.state == .serious)
        #expect(!machine.isConfirming)
    }

    @Test func failingSensorKeepsItsLastVoteUntilStale() {
        var machine = ThermalStateMachine(confirmations: 1, staleAfter: 30)
        #expect(Self.run(&machine, [91]) == [.serious])
        // The sensor fails: the zone still counts as hot for 30 s, then stops voting.
        _ = machine.update(Self.readings(nil), at: 10)
        #expect(machine.state == .serious)
        _ = machine.update(Self.readings(nil), at: 29)
        #expect(machine.state == .serious)
        let change = machine.update(Self.readings(nil), at: 45)
        #expect(change?.state == .nominal)
        #expect(change?.previous == .serious)
    }

    /// A zone near its threshold that misreads once keeps the fast poll: the soak's thermal
    /// steps were missed for 30 s at a time when one read caught the fixture's file between
    /// truncate and write and the schedule fell to the far poll. Once the vote is stale, the
    /// far poll is right: nothing is known to be near.
    @Test func aMisreadNearTheThresholdKeepsTheFastPoll() {
        let schedule = PollSchedule()
        var machine = ThermalStateMachine(confirmations: 1, staleAfter: 30)
        _ = machine.update(Self.readings(87), at: 0)  // 3 °C below serious (90): near
        #expect(schedule.thermalInterval(machine) == schedule.thermalNear)
        _ = machine.update(Self.readings(nil), at: 2)
        #expect(machine.lastAssessment.votes.isEmpty, "the reading itself has no vote")
        #expect(schedule.thermalInterval(machine) == schedule.thermalNear)
        _ = machine.update(Self.readings(nil), at: 40)
        #expect(schedule.thermalInterval(machine) == schedule.thermalFar)
        _ = machine.update(Self.readings(60), at: 42)  // 20 °C from every threshold
        #expect(schedule.thermalInterval(machine) == schedule.thermalFar)
    }

    @Test func vanishedZoneStopsVotingAtOnce() {
        var machine = ThermalStateMachine(confirmations: 1)
        _ = machine.update(Self.readings(96), at: 0)
        let change = machine.update(ThermalReadings(), at: 1)
        #expect(change?.state == .nominal)
    }

    @Test func processorThrottlingRisesAndFalls() {
        var machine = ThermalStateMachine(confirmations: 1)
        func cooling(_ cur: Int) -> ThermalReadings {
            ThermalReadings(coolingDevices: [CoolingDevice(name: "cooling_device0", type: "Processor", curState: cur, maxState: 10)])
        }
        #expect(machine.update(cooling(6), at: 0)?.state == .serious)
        #expect(machine.update(cooling(0), at: 1)?.state == .nominal)
    }
}
