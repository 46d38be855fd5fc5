@testable import JouleHardware
@testable import JouleEnergy
import Testing

/// Power readings as the parser would give them, for one battery and one AC adapter.
enum PowerFixtures {
    static func supplies(
        _ percentage: Double, _ state: PowerSupplyState, ac: Bool?, rateW: Double? = 10, batteries: [String] = ["BAT0"]
    ) -> PowerSupplies {
        let list = batteries.map { name -> Battery in
            var battery = Battery(name: name, syspath: "/sys/devices/LNXSYSTM:00/PNP0C0A:00/power_supply/\(name)", state: state)
            battery.percentage = percentage
            battery.energyFullWh = 50
            battery.energyWh = 50 * percentage / 100
            battery.energyRateW = rateW
            return battery
        }
        let composite = list.isEmpty ? nil : CompositeBattery(
            percentage: percentage, energyWh: 50 * percentage / 100 * Double(list.count), energyFullWh: 50 * Double(list.count),
            energyRateW: rateW, state: state, timeToEmptyS: nil, timeToFullS: nil)
        let lines = ac.map { [LineSource(name: "AC", syspath: "/sys/devices/LNXSYSTM:00/ACPI0003:00/power_supply/AC", kind: "Mains", online: $0)] } ?? []
        return PowerSupplies(batteries: list, lineSources: lines, composite: composite)
    }
}

@Suite struct PowerStateMachineTests {
    @Test func crossingTwentyPercentOnBatteryTurnsLowPowerModeOn() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(25, .discharging, ac: false), override: .auto, at: 0)
        #expect(!machine.lowPowerMode)
        #expect(machine.update(PowerFixtures.supplies(20.5, .discharging, ac: false), override: .auto, at: 60).isEmpty == false)
        #expect(!machine.lowPowerMode)
        let events = machine.update(PowerFixtures.supplies(20, .discharging, ac: false), override: .auto, at: 120)
        #expect(machine.lowPowerMode)
        #expect(machine.isAutomaticallyOn)
        #expect(events.contains(.powerStateDidChange(lowPowerMode: true, reason: "battery-low")))
        #expect(events.contains(.warningLevelChanged(level: .low, previous: .none)))
    }

    @Test func pluggingInKeepsItOnUntilEightyPercent() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(15, .discharging, ac: false), override: .auto, at: 0)
        #expect(machine.lowPowerMode)
        let plugged = machine.update(PowerFixtures.supplies(15, .charging, ac: true), override: .auto, at: 10)
        #expect(plugged.contains(.lineChanged(name: "AC", online: true)))
        #expect(plugged.contains(.warningLevelChanged(level: .none, previous: .low)))
        #expect(!plugged.contains { if case .powerStateDidChange = $0 { true } else { false } })
        #expect(machine.lowPowerMode)
        #expect(machine.lastLineChange == 10)
        _ = machine.update(PowerFixtures.supplies(79.9, .charging, ac: true), override: .auto, at: 3000)
        #expect(machine.lowPowerMode)
        let charged = machine.update(PowerFixtures.supplies(80, .charging, ac: true), override: .auto, at: 3060)
        #expect(!machine.lowPowerMode)
        #expect(charged.contains(.powerStateDidChange(lowPowerMode: false, reason: "charged")))
    }

    @Test func chargingPastEightyDoesNotTurnOffAManualOn() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(50, .charging, ac: true), override: .auto, at: 0)
        let on = machine.update(PowerFixtures.supplies(50, .charging, ac: true), override: .on, at: 1)
        #expect(on == [.powerStateDidChange(lowPowerMode: true, reason: "manual-on")])
        _ = machine.update(PowerFixtures.supplies(90, .charging, ac: true), override: .on, at: 5000)
        #expect(machine.lowPowerMode)
        let cleared = machine.update(PowerFixtures.supplies(90, .charging, ac: true), override: .auto, at: 5001)
        #expect(cleared == [.powerStateDidChange(lowPowerMode: false, reason: "override-cleared")])
    }

    @Test func manualOffWinsOverALowBattery() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(10, .discharging, ac: false), override: .auto, at: 0)
        #expect(machine.lowPowerMode)
        let off = machine.update(PowerFixtures.supplies(10, .discharging, ac: false), override: .off, at: 1)
        #expect(off == [.powerStateDidChange(lowPowerMode: false, reason: "manual-off")])
        _ = machine.update(PowerFixtures.supplies(9, .discharging, ac: false), override: .off, at: 60)
        #expect(!machine.lowPowerMode)
        let auto = machine.update(PowerFixtures.supplies(9, .discharging, ac: false), override: .auto, at: 61)
        #expect(auto == [.powerStateDidChange(lowPowerMode: true, reason: "override-cleared")])
    }

    @Test func warningLevelsFollowUPowerWhileDischarging() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(6, .discharging, ac: false), override: .auto, at: 0)
        #expect(machine.warningLevel == .low)
        #expect(machine.update(PowerFixtures.supplies(5, .discharging, ac: false), override: .auto, at: 1)
            .contains(.warningLevelChanged(level: .critical, previous: .low)))
        #expect(machine.update(PowerFixtures.supplies(2, .discharging, ac: false), override: .auto, at: 2)
            .contains(.warningLevelChanged(level: .action, previous: .critical)))
    }

    @Test func batteryRemovedAndAdded() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(60, .discharging, ac: false, batteries: ["BAT0", "BAT1"]), override: .auto, at: 0)
        let removed = machine.update(PowerFixtures.supplies(60, .discharging, ac: false, batteries: ["BAT0"]), override: .auto, at: 1)
        #expect(removed == [.powerSourceRemoved(name: "BAT1", kind: .battery)])
        let added = machine.update(PowerFixtures.supplies(60, .discharging, ac: false, batteries: ["BAT0", "BAT1"]), override: .auto, at: 2)
        #expect(added == [.powerSourceAdded(name: "BAT1", kind: .battery)])
        #expect(machine.update(PowerFixtures.supplies(60, .discharging, ac: false, batteries: ["BAT0", "BAT1"]), override: .auto, at: 3).isEmpty)
    }

    @Test func batteryChangedOnlyOnStateOrWholePointMoves() {
        var machine = PowerStateMachine()
        machine.start(PowerFixtures.supplies(60, .discharging, ac: false), override: .auto, at: 0)
        #expect(machine.update(PowerFixtures.supplies(59.5, .discharging, ac: false), override: .auto, at: 30).isEmpty)
        let moved = machine.update(PowerFixtures.supplies(59, .discharging, ac: false), override: .auto, at: 60)
        guard case .batteryChanged(let update)? = moved.first else {
            Issue.record("expected batteryChanged, got \(moved)")
            return
        }
        #expect(update.name == "BAT0" && update.percentage == 59 && update.state == .discharging)
        // 29.5 Wh at a smoothed 10 W.
        #expect(update.timeToEmptyS == 10620)
    }
}

@Suite struct TimeEstimatorTests {
    @Test func usesTheDriverRate() {
        var estimator = TimeEstimator()
        let estimate = estimator.update(state: .discharging, energyWh: 30, energyFullWh: 60, driverRateW: 15, at: 0)
        #expect(estimate.timeToEmptyS == 7200)
        let charging = estimator.update(state: .charging, energyWh: 30, energyFullWh: 60, driverRateW: 30, at: 10)
        #expect(charging.timeToFullS == 3600)
        #expect(charging.timeToEmptyS == nil)
    }

    @Test func blanksForTenSecondsAfterALineChange() {
        var estimator = TimeEstimator()
        estimator.lineChanged(at: 100)
        #expect(estimator.update(state: .discharging, energyWh: 30, energyFullWh: 60, driverRateW: 15, at: 105).timeToEmptyS == nil)
        #expect(estimator.update(state: .discharging, energyWh: 30, energyFullWh: 60, driverRateW: 15, at: 110).timeToEmptyS == 7200)
    }

    @Test func estimatesFromEnergyDeltasWithoutADriverRate() {
        var estimator = TimeEstimator()
        let first = estimator.update(state: .discharging, energyWh: 30, energyFullWh: 60, driverRateW: nil, at: 0)
        #expect(first.isEstimating && first.timeToEmptyS == nil)
        // 0.1 Wh in 60 s is 6 W: 29.9 Wh last 17940 s.
        let later = estimator.update(state: .discharging, energyWh: 29.9, energyFullWh: 60, driverRateW: nil, at: 60)
        #expect(later.rateW.map { abs($0 - 6) < 1e-9 } == true)
        #expect(later.timeToEmptyS == 17940)
    }

    @Test func neverEmitsAbsurdEstimates() {
        var estimator = TimeEstimator()
        // 50 Wh at 0.1 W is 500 h: above the 240 h bound.
        #expect(estimator.update(state: .discharging, energyWh: 50, energyFullWh: 60, driverRateW: 0.1, at: 0).timeToEmptyS == nil)
        // Energy rising while "discharging" gives no rate at all.
        var stale = TimeEstimator()
        _ = stale.update(state: .discharging, energyWh: 30, energyFullWh: 60, driverRateW: nil, at: 0)
        #expect(stale.update(state: .discharging, energyWh: 31, energyFullWh: 60, driverRateW: nil, at: 120).rateW == nil)
    }
}
