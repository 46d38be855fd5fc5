import JouleTesting
import Foundation
import JouleHardware
import Testing
@testable import JoulePolicy

/// Throttling: the duty cycle, cgroup cpu.max, and the guarantee that nothing stays stopped.
@Suite struct CPUMonitorThrottleTests {
    private func busyTree(pid: Int32 = 100, cgroup: String = "/user.slice/u.scope") throws -> ProcTree {
        let tree = try ProcTree()
        try tree.addProcess(pid: pid, comm: "spinner", cgroup: cgroup)
        return tree
    }

    /// Steps once a second with the process burning a full core until the first report.
    private func driveToViolation(_ engine: CPUMonitor<RecordingController>, _ tree: ProcTree, _ clock: JumpingClock) async throws -> ResourceReport? {
        for second in 0...6 {
            try tree.update(pid: 100, comm: "spinner", utime: UInt64(second) * 100)
            clock.set(Double(second))
            if let report = try await engine.step().reports.first { return report }
        }
        return nil
    }

    @Test func dutyCycleStopsAndContinuesWithinEachSlot() async throws {
        let tree = try busyTree()
        let clock = JumpingClock()
        let controller = RecordingController(root: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: 4, action: .throttle, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
        let report = try #require(try await driveToViolation(engine, tree, clock))
        #expect(clock.now() == 3)  // 3 s of CPU over 3 s first exceeds the 2 s budget
        #expect(report.exceptionSubtype == "CPU")
        #expect(report.exceptionNote == "NON-FATAL CONDITION")
        #expect(report.actionTaken.contains("SIGSTOP/SIGCONT"))
        let identity = ProcessIdentity(pid: 100, startTimeTicks: 1000)
        #expect(await engine.throttleStates[identity]?.duty == 0.5)

        #expect(await engine.advanceThrottle() == 3.05)  // slot starts running; stop after half
        clock.set(3.05)
        #expect(await engine.advanceThrottle() == 3.1)
        #expect(await engine.throttleStates[identity]?.stopped == true)
        clock.set(3.1)
        #expect(await engine.advanceThrottle() == 3.15)
        #expect(await engine.throttleStates[identity]?.stopped == false)
        clock.set(3.15)
        _ = await engine.advanceThrottle()
        #expect(controller.log == ["open 100", "SIGSTOP 100", "SIGCONT 100", "SIGSTOP 100"])

        // Held to half a core, it used 0.5 core in the next second: the duty stays put. Had
        // it used a full core while running half the time, the duty would move toward 0.25.
        try tree.update(pid: 100, comm: "spinner", utime: 350)
        clock.set(4)
        #expect(try await engine.step().reports.isEmpty)  // throttled processes are reported once
        #expect(await engine.throttleStates[identity]?.duty == 0.5)
        try tree.update(pid: 100, comm: "spinner", utime: 450)
        clock.set(5)
        _ = try await engine.step()
        #expect(await engine.throttleStates[identity]?.duty == 0.375)

        // On the way out a stopped process is continued and its handle closed.
        _ = await engine.releaseAll()
        #expect(controller.log.suffix(2) == ["SIGCONT 100", "close 100"])
        #expect(await engine.throttleStates.isEmpty)
    }

    @Test func runAlwaysContinuesWhatItStopped() async throws {
        let tree = try busyTree()
        let clock = JumpingClock()
        clock.onSleep { deadline in
            try? tree.update(pid: 100, comm: "spinner", utime: UInt64(deadline * 100))
        }
        let controller = RecordingController(root: tree.path)
        var configuration = makeConfiguration(limit: 30, window: 2, action: .throttle, interval: 0.5, selectors: ProcessSelectors(pids: [100]))
        configuration.durationSeconds = 5
        let engine = try CPUMonitor(
            configuration: configuration, root: tree.path, clock: clock, controller: controller, monitor: testMonitor,
            store: nil, ticksPerSecond: 100)
        try await engine.run { _ in }
        let log = controller.log
        #expect(log.contains("SIGSTOP 100"))
        #expect(log.suffix(2) == ["SIGCONT 100", "close 100"])
        #expect(clock.now() == 5)
    }

    @Test func cancellationContinuesWhatItStopped() async throws {
        let tree = try busyTree()
        let clock = JumpingClock()
        clock.onSleep { deadline in try? tree.update(pid: 100, comm: "spinner", utime: UInt64(deadline * 100)) }
        clock.cancelAt.withLock { $0 = 3.52 }
        let controller = RecordingController(root: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: 2, action: .throttle, interval: 0.5, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
        try await engine.run { _ in }
        #expect(controller.log.contains("SIGSTOP 100"))
        #expect(controller.log.suffix(2) == ["SIGCONT 100", "close 100"])
    }

    @Test func aFailingMonitorContinuesWhatItStoppedBeforeThrowing() async throws {
        let tree = try busyTree()
        let clock = JumpingClock()
        clock.onSleep { deadline in
            if deadline >= 4 {
                try? FileManager.default.removeItem(atPath: tree.path + "/proc")
            } else {
                try? tree.update(pid: 100, comm: "spinner", utime: UInt64(deadline * 100))
            }
        }
        let controller = RecordingController(root: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: 2, action: .throttle, interval: 0.5, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
        await #expect(throws: CPUMonitorError.self) { try await engine.run { _ in } }
        #expect(controller.log.contains("SIGSTOP 100"))
        #expect(controller.log.suffix(2) == ["SIGCONT 100", "close 100"])
    }

    @Test func aWatchedCgroupIsLimitedThroughCPUMaxAndRestored() async throws {
        let tree = try busyTree(cgroup: "/app.slice/worker.service")
        try tree.write("sys/fs/cgroup/app.slice/cpu.max", "max 100000\n")
        let clock = JumpingClock()
        let controller = RecordingController(root: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: 4, action: .throttle, selectors: ProcessSelectors(cgroups: ["/app.slice"])),
            root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
        let report = try #require(try await driveToViolation(engine, tree, clock))
        #expect(report.actionTaken.contains("cpu.max 50000 100000"))
        #expect(try Syscalls.readText(tree.path + "/sys/fs/cgroup/app.slice/cpu.max") == "50000 100000\n")
        #expect(await engine.limitedCgroups == ["/app.slice": "max 100000"])
        #expect(await engine.advanceThrottle() == nil)  // no signals for cgroup throttling
        _ = await engine.releaseAll()
        #expect(try Syscalls.readText(tree.path + "/sys/fs/cgroup/app.slice/cpu.max") == "max 100000\n")
        #expect(!controller.log.contains { $0.hasPrefix("SIG") })
    }

    @Test func dryRunNeverSignals() async throws {
        for action in [CPUMonitorAction.kill, .throttle] {
            let tree = try busyTree()
            let clock = JumpingClock()
            let controller = RecordingController(root: tree.path)
            let engine = try CPUMonitor(
                configuration: makeConfiguration(limit: 50, window: 4, action: action, selectors: ProcessSelectors(pids: [100]), dryRun: true),
                root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
            let report = try #require(try await driveToViolation(engine, tree, clock))
            #expect(report.dryRun)
            #expect(!report.fatal)
            #expect(report.actionTaken.contains("dry run"))
            #expect(controller.log.isEmpty)
        }
    }

    @Test func throttledProcessThatExitsIsForgotten() async throws {
        let tree = try busyTree()
        let clock = JumpingClock()
        let controller = RecordingController(root: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: 4, action: .throttle, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, monitor: testMonitor, store: nil, ticksPerSecond: 100)
        _ = try #require(try await driveToViolation(engine, tree, clock))
        try tree.remove(pid: 100)
        clock.set(4)
        let events = try await engine.step()
        #expect(events.exits == [100])
        #expect(await engine.throttleStates.isEmpty)
        #expect(controller.log.last == "close 100")
    }
}
