@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Foundation
import Testing

/// Throttling: the duty cycle, cgroup cpu.max, and the guarantee that nothing stays stopped.
@Suite struct CPUMonitorThrottleTests {
    private func busyTree(pid: Int32 = 100, cgroup: String = "/user.slice/u.scope") throws -> ProcTree {
        let tree = try ProcTree()
        try tree.addProcess(pid: pid, comm: "spinner", cgroup: cgroup)
        return tree
    }

    /// Steps once a second with the process burning a full core until the first report.
    private func driveToViolation(_ engine: CPUMonitor<RecordingProcessController>, _ tree: ProcTree, _ clock: JumpingClock) async throws -> ResourceReport? {
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
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .throttle, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
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
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        var configuration = makeConfiguration(limit: 30, window: .seconds(2), action: .throttle, interval: .seconds(0.5), selectors: ProcessSelectors(pids: [100]))
        configuration.duration = .seconds(5)
        let engine = try CPUMonitor(
            configuration: configuration, root: tree.path, clock: clock, controller: controller, safety: testMonitor,
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
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(2), action: .throttle, interval: .seconds(0.5), selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
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
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(2), action: .throttle, interval: .seconds(0.5), selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        await #expect(throws: CPUMonitorError.self) { try await engine.run { _ in } }
        #expect(controller.log.contains("SIGSTOP 100"))
        #expect(controller.log.suffix(2) == ["SIGCONT 100", "close 100"])
    }

    @Test func aWatchedCgroupIsLimitedThroughCPUMaxAndRestored() async throws {
        let tree = try busyTree(cgroup: "/app.slice/worker.service")
        try tree.write("sys/fs/cgroup/app.slice/cpu.max", "max 100000\n")
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .throttle, selectors: ProcessSelectors(cgroups: ["/app.slice"])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        let report = try #require(try await driveToViolation(engine, tree, clock))
        #expect(report.actionTaken.contains("cpu.max 50000 100000"))
        #expect(try FileSystem.readText(tree.path + "/sys/fs/cgroup/app.slice/cpu.max") == "50000 100000\n")
        #expect(await engine.limitedCgroups == ["/app.slice": "max 100000"])
        #expect(await engine.advanceThrottle() == nil)  // no signals for cgroup throttling
        _ = await engine.releaseAll()
        #expect(try FileSystem.readText(tree.path + "/sys/fs/cgroup/app.slice/cpu.max") == "max 100000\n")
        #expect(!controller.log.contains { $0.hasPrefix("SIG") })
    }

    @Test func dryRunNeverSignals() async throws {
        for action in [CPUMonitorAction.kill, .throttle] {
            let tree = try busyTree()
            let clock = JumpingClock()
            let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
            let engine = try CPUMonitor(
                configuration: makeConfiguration(limit: 50, window: .seconds(4), action: action, selectors: ProcessSelectors(pids: [100]), dryRun: true),
                root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
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
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .throttle, selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
        _ = try #require(try await driveToViolation(engine, tree, clock))
        try tree.remove(pid: 100)
        clock.set(4)
        let events = try await engine.step()
        #expect(events.exits == [100])
        #expect(await engine.throttleStates.isEmpty)
        #expect(controller.log.last == "close 100")
    }

    // MARK: when cpu.max cannot be used

    /// A cgroup /app.slice without cpu.max: spinner [100] in worker.service, helper [101] in
    /// a child cgroup, and root's daemon [102] (another user's, so never stopped).
    private func cgroupTreeWithoutCPUMax() throws -> ProcTree {
        let tree = try ProcTree()
        try tree.addProcess(pid: 100, comm: "spinner", cgroup: "/app.slice/worker.service")
        try tree.addProcess(pid: 101, comm: "helper", cgroup: "/app.slice/worker.service/sub")
        try tree.addProcess(pid: 102, comm: "daemon", uid: 0, cgroup: "/app.slice/worker.service")
        try tree.write("sys/fs/cgroup/app.slice/worker.service/cgroup.procs", "100\n102\n")
        try tree.write("sys/fs/cgroup/app.slice/worker.service/sub/cgroup.procs", "101\n")
        try tree.write("sys/fs/cgroup/cgroup.subtree_control", "memory\n")
        return tree
    }

    private func cgroupEngine(_ tree: ProcTree, _ controller: RecordingProcessController, _ clock: JumpingClock) throws
        -> CPUMonitor<RecordingProcessController>
    {
        try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .throttle, selectors: ProcessSelectors(cgroups: ["/app.slice"])),
            root: tree.path, clock: clock, controller: controller, safety: testMonitor, store: nil, ticksPerSecond: 100)
    }

    /// Steps once a second with the spinner burning a full core; every event until the first report.
    private func drive(_ engine: CPUMonitor<RecordingProcessController>, _ tree: ProcTree, _ clock: JumpingClock) async throws
        -> [CPUMonitorEvent]
    {
        var events: [CPUMonitorEvent] = []
        for second in 0...6 {
            try tree.update(pid: 100, comm: "spinner", utime: UInt64(second) * 100)
            clock.set(Double(second))
            events += try await engine.step()
            if !events.reports.isEmpty { return events }
        }
        return events
    }

    /// PIDs whose last signal in the log was SIGSTOP: what would be left stopped.
    private func leftStopped(_ log: [String]) -> Set<String> {
        var stopped: Set<String> = []
        for entry in log {
            if entry.hasPrefix("SIGSTOP ") { stopped.insert(String(entry.dropFirst(8))) }
            if entry.hasPrefix("SIGCONT ") { stopped.remove(String(entry.dropFirst(8))) }
        }
        return stopped
    }

    @Test func aMissingCPUMaxIsMadeByEnablingTheCPUControllerAndBothAreUndone() async throws {
        let tree = try cgroupTreeWithoutCPUMax()
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        // As the kernel does: +cpu in the parent creates cpu.max in the child.
        let root = tree.path
        controller.onEnableCPU.withLock {
            $0 = { cgroup in
                try? "max 100000\n".write(
                    toFile: root + "/sys/fs/cgroup" + cgroup.description + "/cpu.max", atomically: false, encoding: .utf8)
            }
        }
        try tree.write("sys/fs/cgroup/app.slice/cgroup.procs", "")
        let engine = try cgroupEngine(tree, controller, clock)
        let events = try await drive(engine, tree, clock)
        let report = try #require(events.reports.first)
        #expect(report.actionTaken
            == "throttled: cgroup /app.slice limited to 50% of one core (cpu.max 50000 100000, after enabling the cpu controller in /cgroup.subtree_control)")
        #expect(events.throttlingNotices.count == 1)
        #expect(events.throttlingNotices.first?.contains("cpu controller is enabled in /cgroup.subtree_control") == true)
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/app.slice/cpu.max", encoding: .utf8) == "50000 100000\n")
        #expect(await engine.cpuControllerEnabledCgroups == ["/app.slice"])
        #expect(await engine.advanceThrottle() == nil)  // cpu.max holds it: no signals

        #expect(await engine.releaseAll().isEmpty)
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/app.slice/cpu.max", encoding: .utf8) == "max 100000\n")
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/cgroup.subtree_control", encoding: .utf8) == "-cpu\n")
        #expect(controller.log == ["+cpu /", "cpu.max /app.slice 50000 100000", "cpu.max /app.slice max 100000", "-cpu /"])
        #expect(await engine.cpuControllerEnabledCgroups.isEmpty)
    }

    @Test func withoutCPUMaxOrTheControllerTheCgroupIsDutyCycledAndContinuedOnExit() async throws {
        let tree = try cgroupTreeWithoutCPUMax()
        // The parent's subtree_control cannot be written, even by root: a directory.
        try FileManager.default.removeItem(atPath: tree.path + "/sys/fs/cgroup/cgroup.subtree_control")
        try FileManager.default.createDirectory(
            atPath: tree.path + "/sys/fs/cgroup/cgroup.subtree_control", withIntermediateDirectories: true)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try cgroupEngine(tree, controller, clock)
        let events = try await drive(engine, tree, clock)
        let report = try #require(events.reports.first)
        #expect(report.actionTaken.hasPrefix(
            "throttled: cgroup /app.slice held to 50% of one core by SIGSTOP/SIGCONT duty cycling of its processes (cpu.max unavailable: "))
        #expect(report.actionTaken.contains("ENOENT"))
        #expect(report.actionTaken.contains("cannot enable the cpu controller"))
        #expect(events.throttlingNotices.count == 1)
        #expect(events.throttlingNotices.first?.contains("throttling its processes by SIGSTOP/SIGCONT duty cycling instead") == true)

        // Every process of the cgroup and below is stopped in the second half of the slot,
        // except root's daemon, which the safety rules protect.
        #expect(await engine.advanceThrottle() == 3.05)
        clock.set(3.05)
        #expect(await engine.advanceThrottle() == 3.1)
        #expect(await engine.dutyCycledCgroups["/app.slice"]?.stopped == [100, 101])
        #expect(leftStopped(controller.log) == ["100", "101"])
        #expect(!controller.log.contains("SIGSTOP 102"))

        // A process that arrives is held from the next slot on; one that leaves is let go.
        try tree.addProcess(pid: 103, comm: "forked", cgroup: "/app.slice/worker.service/sub")
        try tree.write("sys/fs/cgroup/app.slice/worker.service/sub/cgroup.procs", "103\n")
        clock.set(3.1)
        #expect(await engine.advanceThrottle() == 3.15)
        #expect(leftStopped(controller.log).isEmpty)
        #expect(controller.log.contains("close 101"))
        clock.set(3.15)
        _ = await engine.advanceThrottle()
        #expect(await engine.dutyCycledCgroups["/app.slice"]?.stopped == [100, 103])

        // Nothing is reported twice, and the way out continues everything.
        try tree.update(pid: 100, comm: "spinner", utime: 700)
        clock.set(7)
        #expect(try await engine.step().throttlingNotices.isEmpty)
        #expect(await engine.releaseAll().isEmpty)
        #expect(leftStopped(controller.log).isEmpty)
        #expect(await engine.dutyCycledCgroups.isEmpty)
        #expect(await engine.limitedCgroups.isEmpty)
    }

    @Test func aCPUMaxThatCannotBeWrittenFallsBackWhenTheControllerIsAlreadyOn() async throws {
        let tree = try cgroupTreeWithoutCPUMax()
        try tree.write("sys/fs/cgroup/cgroup.subtree_control", "cpu memory\n")
        // A directory in place of cpu.max: even root's write fails (EISDIR).
        try FileManager.default.createDirectory(
            atPath: tree.path + "/sys/fs/cgroup/app.slice/cpu.max", withIntermediateDirectories: true)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try cgroupEngine(tree, controller, clock)
        let report = try #require(try await drive(engine, tree, clock).reports.first)
        #expect(report.actionTaken.contains("SIGSTOP/SIGCONT duty cycling of its processes"))
        #expect(report.actionTaken.contains("EISDIR"))
        #expect(!controller.log.contains { $0.hasPrefix("+cpu") })  // already enabled: nothing to try
        clock.set(3.05)
        _ = await engine.advanceThrottle()
        clock.set(3.1)
        _ = await engine.advanceThrottle()
        #expect(!leftStopped(controller.log).isEmpty)
        _ = await engine.releaseAll()
        #expect(leftStopped(controller.log).isEmpty)
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/cgroup.subtree_control", encoding: .utf8) == "cpu memory\n")
    }

    @Test func aCgroupHoldingTheMonitorIsNeverLimitedAsAWhole() async throws {
        let tree = try cgroupTreeWithoutCPUMax()
        try tree.write("sys/fs/cgroup/app.slice/cpu.max", "max 100000\n")
        try tree.addProcess(pid: 9000, comm: "joule", cgroup: "/app.slice/worker.service")
        try tree.write("sys/fs/cgroup/app.slice/worker.service/cgroup.procs", "100\n102\n9000\n")
        var safety = testMonitor
        safety.ownCgroups = ["/app.slice/worker.service"]
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), action: .throttle, selectors: ProcessSelectors(cgroups: ["/app.slice"])),
            root: tree.path, clock: clock, controller: controller, safety: safety, store: nil, ticksPerSecond: 100)
        let report = try #require(try await drive(engine, tree, clock).reports.first)
        #expect(report.actionTaken.contains("(cpu.max unavailable: the cgroup holds the monitor or its parent)"))
        #expect(!controller.log.contains { $0.hasPrefix("cpu.max") })
        clock.set(3.05)
        _ = await engine.advanceThrottle()
        clock.set(3.1)
        _ = await engine.advanceThrottle()
        #expect(leftStopped(controller.log) == ["100", "101"])  // never joule [9000], never root's [102]
        _ = await engine.releaseAll()
        #expect(leftStopped(controller.log).isEmpty)
    }

    @Test func runLeavesNothingStoppedOrChangedWhenItFallsBack() async throws {
        let tree = try cgroupTreeWithoutCPUMax()  // +cpu "works" but brings no cpu.max
        let clock = JumpingClock()
        clock.onSleep { deadline in try? tree.update(pid: 100, comm: "spinner", utime: UInt64(deadline * 100)) }
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        var configuration = makeConfiguration(
            limit: 30, window: .seconds(2), action: .throttle, interval: .seconds(0.5), selectors: ProcessSelectors(cgroups: ["/app.slice"]))
        configuration.duration = .seconds(5)
        let engine = try CPUMonitor(
            configuration: configuration, root: tree.path, clock: clock, controller: controller, safety: testMonitor,
            store: nil, ticksPerSecond: 100)
        let events = Locked<[CPUMonitorEvent]>([])
        try await engine.run { event in events.withLock { $0.append(event) } }
        #expect(events.withLock { $0.throttlingNotices.count } == 1)
        #expect(controller.log.contains("SIGSTOP 100"))
        #expect(leftStopped(controller.log).isEmpty)
        #expect(controller.log.filter { $0.hasPrefix("open") }.count == controller.log.filter { $0.hasPrefix("close") }.count)
        #expect(try String(contentsOfFile: tree.path + "/sys/fs/cgroup/cgroup.subtree_control", encoding: .utf8) == "-cpu\n")
    }

    @Test func anEnabledControllerThatBringsNoCPUMaxIsDisabledAgain() async throws {
        let tree = try cgroupTreeWithoutCPUMax()  // subtree_control writable, but no cpu.max appears
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try cgroupEngine(tree, controller, clock)
        let report = try #require(try await drive(engine, tree, clock).reports.first)
        #expect(report.actionTaken.contains("still unusable after enabling the cpu controller"))
        #expect(controller.log.filter { $0.hasPrefix("+cpu") || $0.hasPrefix("-cpu") } == ["+cpu /", "-cpu /"])
        #expect(await engine.cpuControllerEnabledCgroups.isEmpty)
        #expect(await engine.dutyCycledCgroups["/app.slice"] != nil)
        _ = await engine.releaseAll()
    }
}

extension Array where Element == CPUMonitorEvent {
    var throttlingNotices: [String] {
        compactMap { if case .throttling(let message) = $0 { message } else { nil } }
    }
}
