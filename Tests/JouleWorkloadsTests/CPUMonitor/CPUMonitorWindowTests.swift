@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Foundation
import Testing

/// The window arithmetic on fixture /proc trees, with a clock the tests step (100 ticks/s).
@Suite struct CPUMonitorWindowTests {
    @Test func violationHappensAtTheFirstSampleOverBudget() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 100, comm: "worker")
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(10), selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        // 40 % of a core for ten seconds: 4 s within any 10 s window, under the 5 s budget.
        var ticks: UInt64 = 0
        var events = try await monitor.step()
        #expect(events.watched == [100])
        for second in 1...10 {
            ticks += 40
            try tree.update(pid: 100, comm: "worker", utime: ticks)
            clock.set(Double(second))
            events = try await monitor.step()
            #expect(events.reports.isEmpty)
        }
        let identity = ProcessIdentity(pid: 100, startTimeTicks: 1000)
        #expect(await monitor.usage(of: identity) == WindowUsage(cpuSeconds: 4, observedSeconds: 10))
        // Then a full core: the window holds 4.6 s at t=11 and 5.2 s at t=12.
        ticks += 100
        try tree.update(pid: 100, comm: "worker", utime: ticks)
        clock.set(11)
        events = try await monitor.step()
        #expect(events.reports.isEmpty)
        #expect(await monitor.usage(of: identity) == WindowUsage(cpuSeconds: 4.6, observedSeconds: 10))
        ticks += 100
        try tree.update(pid: 100, comm: "worker", utime: ticks)
        clock.set(12)
        events = try await monitor.step()
        let report = try #require(events.reports.first)
        #expect(report.exceptionSubtype == "CPU_FATAL")
        #expect(report.exceptionMessage == "(Limit 50%) Observed 52% over 10 seconds")
        #expect(report.cpuSummary == "5.2 seconds cpu time over 10 seconds (52% cpu average), exceeding limit of 50% cpu over 10 seconds")
        #expect(controller.log == ["open 100", "SIGKILL 100", "close 100"])
        #expect(await monitor.watchedIdentities.isEmpty)
    }

    @Test func appleExampleNinetySevenPercentOverFiftySeconds() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 200, comm: "app")
        let clock = JumpingClock()
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 80, window: .seconds(60), action: .report, selectors: ProcessSelectors(pids: [200])),
            root: tree.path, clock: clock, controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path), safety: testMonitor,
            store: nil, ticksPerSecond: 100)
        var reports: [ResourceReport] = []
        for second in 0...60 where reports.isEmpty {
            try tree.update(pid: 200, comm: "app", utime: UInt64(second) * 97)
            clock.set(Double(second))
            reports = try await monitor.step().reports
            if !reports.isEmpty { #expect(second == 50) }
        }
        let report = try #require(reports.first)
        #expect(report.exceptionMessage == "(Limit 80%) Observed 97% over 50 seconds")
        #expect(report.cpuSummary == "48 seconds cpu time over 50 seconds (97% cpu average), exceeding limit of 80% cpu over 60 seconds")
        #expect(report.exceptionSubtype == "CPU")
        #expect(report.exceptionNote == "NON-FATAL CONDITION")
        #expect(report.text.contains("Exception Note:      NON-FATAL CONDITION"))
    }

    @Test func cpuSpentBeforeTheFirstSampleDoesNotCount() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 300, comm: "old", utime: 1_000_000)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(pids: [300])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        for second in 0...8 {
            try tree.update(pid: 300, comm: "old", utime: 1_000_000 + UInt64(second) * 10)
            clock.set(Double(second))
            #expect(try await monitor.step().reports.isEmpty)
        }
        #expect(controller.log.isEmpty)
    }

    @Test func oldSamplesLeaveTheWindow() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 400, comm: "bursty")
        let clock = JumpingClock()
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .report, selectors: ProcessSelectors(pids: [400])),
            root: tree.path, clock: clock, controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path), safety: testMonitor,
            store: nil, ticksPerSecond: 100)
        // A 1.5 s burst, then idle: the burst counts while inside the window, then drops out.
        let totals: [UInt64] = [0, 150, 150, 150, 150, 150, 150]
        var usages: [Double] = []
        for (second, total) in totals.enumerated() {
            try tree.update(pid: 400, comm: "bursty", utime: total)
            clock.set(Double(second))
            #expect(try await monitor.step().reports.isEmpty)
            usages.append(await monitor.usage(of: ProcessIdentity(pid: 400, startTimeTicks: 1000))?.cpuSeconds ?? -1)
        }
        #expect(usages == [-1, 1.5, 1.5, 1.5, 1.5, 0, 0])
    }

    /// Issue 32: one report per episode, as iOS writes one per breach. A process that keeps
    /// spinning is reported once (it was reported every re-armed window: 3, 6, 9, 12); after a
    /// whole window under its budget, a new breach is a new report.
    @Test func reportActionReportsOncePerEpisode() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 500, comm: "spin")
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .report, selectors: ProcessSelectors(pids: [500])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        var reportTimes: [Int] = []
        for second in 0...24 {
            // Spins for 0-9 s, idles for 9-15 s (a whole window and more), spins again from 15 s.
            let ticks = second <= 9 ? second * 100 : second <= 15 ? 900 : 900 + (second - 15) * 100
            try tree.update(pid: 500, comm: "spin", utime: UInt64(ticks))
            clock.set(Double(second))
            if try await !monitor.step().reports.isEmpty { reportTimes.append(second) }
        }
        // Budget 2 s at one core: exceeded 3 s into the first spin, and 3 s into the second.
        #expect(reportTimes == [3, 18])
        #expect(controller.log.isEmpty)
    }

    @Test func pidReuseStartsANewIdentityWithoutANegativeDelta() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 600, comm: "first", utime: 5000, startTime: 100)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(pids: [600])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        _ = try await monitor.step()
        clock.set(1)
        try tree.update(pid: 600, comm: "first", utime: 5150, startTime: 100)
        _ = try await monitor.step()
        // The first process exits; a new one gets PID 600 and starts from zero.
        clock.set(2)
        try tree.update(pid: 600, comm: "second", utime: 0, startTime: 9000)
        let events = try await monitor.step()
        #expect(events.exits == [600])
        #expect(events.watched == [600])
        #expect(events.reports.isEmpty)
        #expect(await monitor.watchedIdentities == [ProcessIdentity(pid: 600, startTimeTicks: 9000)])
        #expect(await monitor.usage(of: ProcessIdentity(pid: 600, startTimeTicks: 9000)) == nil)
        // The old identity's 1.5 s do not carry over to the newcomer.
        clock.set(3)
        try tree.update(pid: 600, comm: "second", utime: 10, startTime: 9000)
        #expect(try await monitor.step().reports.isEmpty)
        #expect(controller.log.isEmpty)
    }

    @Test func pidReusedBetweenDecisionAndKillIsNeverSignalled() async throws {
        // The sampler still reads the old owner's counters (over budget), but by the time the
        // handle is opened the PID belongs to another process: the controller's view of /proc
        // shows a different start time, so nothing is signalled.
        let tree = try ProcTree()
        try tree.addProcess(pid: 700, comm: "victim", startTime: 100)
        let controllerView = try ProcTree()
        try controllerView.addProcess(pid: 700, comm: "innocent", startTime: 5555)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: controllerView.path, cgroupRoot: controllerView.path)
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(pids: [700])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        _ = try await monitor.step()
        clock.set(1)
        try tree.update(pid: 700, comm: "victim", utime: 300, startTime: 100)
        let events = try await monitor.step()
        #expect(events.exits == [700])
        #expect(events.reports.isEmpty)
        #expect(controller.log == ["open 700 refused"])
    }

    @Test func processThatExitsMidWindowIsDroppedQuietly() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 800, comm: "short")
        try tree.addProcess(pid: 801, comm: "stays")
        let clock = JumpingClock()
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(patterns: ["^s"])),
            root: tree.path, clock: clock, controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path), safety: testMonitor,
            store: nil, ticksPerSecond: 100)
        #expect(Set(try await monitor.step().watched) == [800, 801])
        try tree.remove(pid: 800)
        clock.set(1)
        let events = try await monitor.step()
        #expect(events.exits == [800])
        #expect(await monitor.watchedIdentities.map(\.pid) == [801])
    }

    @Test func killTargetGoneBeforeTheSignalIsAnExitNotAnError() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 900, comm: "racer")
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        _ = controller.exited.withLock { $0.insert(900) }
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(pids: [900])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        _ = try await monitor.step()
        try tree.update(pid: 900, comm: "racer", utime: 300)
        clock.set(1)
        let events = try await monitor.step()
        #expect(events.exits == [900])
        #expect(events.reports.isEmpty)
        #expect(controller.log == ["open 900", "close 900"])
    }

    @Test func unreadableProcIsAnError() async throws {
        let tree = try ProcTree()
        let monitor = try CPUMonitor(
            configuration: makeConfiguration(selectors: ProcessSelectors(pids: [5])),
            root: tree.path + "/missing", clock: JumpingClock(), controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path),
            safety: testMonitor, store: nil, ticksPerSecond: 100)
        await #expect(throws: CPUMonitorError.self) { try await monitor.step() }
    }
}
