import Testing
@testable import JouleWorkloads

@Suite struct ScanControllerTests {
    static let s: Int64 = 1_000_000

    @Test func radioFollowsDemandAndPolicy() {
        var controller = ScanController(demand: [], start: 0)
        #expect(controller.radio == .off, "nothing needs the radio")
        controller.demand = .monitoring
        #expect(controller.radio == .scanning(.monitoring))
        controller.demand = [.monitoring, .ranging]
        #expect(controller.radio == .scanning(.ranging))
        controller.rangingGaveUp = true
        #expect(controller.radio == .scanning(.monitoring), "ranging that stopped improving falls back to low duty")
        controller.rangingGaveUp = false
        controller.policy = .reduced
        guard case .scanning(let reduced) = controller.radio else {
            Issue.record("reduced policy turned the radio off")
            return
        }
        #expect(reduced.window <= reduced.interval / 20)
        controller.policy = .stopped
        #expect(controller.radio == .off)
        #expect(controller.nextDeadline == nil)
        controller.policy = .normal
        controller.demand = []
        #expect(controller.radio == .off)
    }

    @Test func monitoringDutyIsLowRangingHigh() {
        #expect(ScanDuty.monitoring.window * 5 <= ScanDuty.monitoring.interval)
        #expect(ScanDuty.ranging.window == ScanDuty.ranging.interval)
        #expect(ScanDuty.monitoring.windowSlots == 800 && ScanDuty.monitoring.intervalSlots == 8000)
    }

    @Test func dutySpecs() throws {
        let duty = try ScanDuty(spec: "30/300")
        #expect(duty.windowSlots == 48 && duty.intervalSlots == 480)
        for bad in ["300/30", "1/10", "30/20000", "30", "a/b", "30/300/3"] {
            #expect(throws: ScanDuty.SpecError.self) { try ScanDuty(spec: bad) }
        }
    }

    @Test func autoPauseBacksOffStepByStepAndReturnsOnChange() {
        let s = Self.s
        var controller = ScanController(demand: .monitoring, start: 0)
        #expect(controller.nextDeadline == 30 * s)
        controller.advance(to: 30 * s)
        #expect(controller.pauseLevel == 1)
        #expect(controller.radio.isOn, "each paused cycle starts with a scan window")
        controller.advance(to: 40 * s)
        #expect(controller.radio == .off)
        #expect(controller.nextDeadline == 60 * s)
        // Cycles of 30, 60, 120 then 300 s, each opening with 10 s of scanning.
        var onTimes: [Int64] = []
        var time: Int64 = 40 * s
        var wasOn = false
        while time < 900 * s {
            time += s
            controller.advance(to: time)
            if controller.radio.isOn && !wasOn { onTimes.append(time / s) }
            wasOn = controller.radio.isOn
        }
        #expect(onTimes == [60, 120, 240, 540, 840])
        #expect(controller.pauseLevel == 4)
        controller.noteChange(at: 845 * s)
        controller.advance(to: 860 * s)
        #expect(controller.pauseLevel == 0)
        #expect(controller.radio == .scanning(.monitoring))
        #expect(controller.nextDeadline == 875 * s)
    }

    @Test func noAutoPauseAndRangingNeverPause() {
        var configuration = ScanController.Configuration()
        configuration.autoPause = false
        var monitor = ScanController(configuration: configuration, demand: .monitoring, start: 0)
        monitor.advance(to: 3600 * Self.s)
        #expect(monitor.radio == .scanning(.monitoring))
        var ranging = ScanController(demand: .ranging, start: 0)
        ranging.advance(to: 3600 * Self.s)
        #expect(ranging.radio == .scanning(.ranging))
        #expect(ranging.nextDeadline == nil)
    }
}
