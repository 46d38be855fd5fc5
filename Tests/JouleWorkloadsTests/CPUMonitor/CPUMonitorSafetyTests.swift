@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Foundation
import Testing

/// Each safety rule, with a process burning a full core that the selectors do match.
@Suite struct CPUMonitorSafetyTests {
    /// Runs `--match .` (everything) with kill over a busy fixture process and returns the
    /// protections reported and what the controller was asked to do.
    private func run(
        pid: Int32, comm: String = "busy", ppid: Int32 = 500, flags: UInt32 = 4_194_304, uid: UInt32 = 1000,
        monitor: SafetyRules = testMonitor, selectors: ProcessSelectors = ProcessSelectors(patterns: ["."])
    ) async throws -> (protections: [Protection], reports: [ResourceReport], log: [String]) {
        let tree = try ProcTree()
        try tree.addProcess(pid: pid, comm: comm, ppid: ppid, flags: flags, uid: uid)
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 10, window: .seconds(4), selectors: selectors),
            root: tree.path, clock: clock, controller: controller, safety: monitor, store: nil, ticksPerSecond: 100)
        var events = try await engine.step()
        for second in 1...4 {
            try tree.write("proc/\(pid)/stat", ProcTree.statLine(
                pid: pid, comm: comm, state: "R", ppid: ppid, flags: flags, utime: UInt64(second) * 100))
            clock.set(Double(second))
            events += try await engine.step()
        }
        return (events.protections, events.reports, controller.log)
    }

    @Test func anOrdinaryBusyProcessIsKilled() async throws {
        let result = try await run(pid: 4321)
        #expect(result.protections.isEmpty)
        #expect(result.reports.count == 1)
        #expect(result.log == ["open 4321", "SIGKILL 4321", "close 4321"])
    }

    @Test func neverPID1() async throws {
        let result = try await run(pid: 1, comm: "systemd", ppid: 0)
        #expect(result.protections == [.initProcess])
        #expect(result.log.isEmpty && result.reports.isEmpty)
    }

    @Test func neverItself() async throws {
        let result = try await run(pid: testMonitor.pid, comm: "joule")
        #expect(result.protections == [.jouleItself])
        #expect(result.log.isEmpty && result.reports.isEmpty)
    }

    @Test func neverItsParent() async throws {
        let result = try await run(pid: testMonitor.ancestors[0], comm: "bash")
        #expect(result.protections == [.jouleParent])
        #expect(result.log.isEmpty && result.reports.isEmpty)
    }

    @Test func neverKernelThreadsByFlag() async throws {
        let result = try await run(pid: 77, comm: "kworker/0:1", ppid: 0, flags: 0x0420_8060)
        #expect(result.protections == [.kernelThread])
        #expect(result.log.isEmpty && result.reports.isEmpty)
    }

    @Test func neverChildrenOfKthreadd() async throws {
        let result = try await run(pid: 78, comm: "ksoftirqd/0", ppid: 2, flags: 0)
        #expect(result.protections == [.kernelThread])
        #expect(result.log.isEmpty && result.reports.isEmpty)
    }

    @Test func neverAnotherUsersProcessUnlessRoot() async throws {
        let other = try await run(pid: 4400, uid: 0)
        #expect(other.protections == [.otherUser])
        #expect(other.log.isEmpty && other.reports.isEmpty)
        let root = SafetyRules(pid: 9000, ancestors: [8999], uid: 0, isRoot: true)
        let asRoot = try await run(pid: 4400, uid: 1000, monitor: root)
        #expect(asRoot.protections.isEmpty)
        #expect(asRoot.log == ["open 4400", "SIGKILL 4400", "close 4400"])
    }

    @Test func neverOutsideTheSelectors() async throws {
        let byPID = try await run(pid: 4500, selectors: ProcessSelectors(pids: [4501]))
        #expect(byPID.log.isEmpty && byPID.reports.isEmpty && byPID.protections.isEmpty)
        let byName = try await run(pid: 4500, comm: "busy", selectors: ProcessSelectors(patterns: ["^idle$"]))
        #expect(byName.log.isEmpty && byName.reports.isEmpty)
        let byUID = try await run(pid: 4500, selectors: ProcessSelectors(uids: [1001]))
        #expect(byUID.log.isEmpty && byUID.reports.isEmpty)
        let byCgroup = try await run(pid: 4500, selectors: ProcessSelectors(cgroups: ["/system.slice"]))
        #expect(byCgroup.log.isEmpty && byCgroup.reports.isEmpty)
        // Kinds combine: right name but wrong user is outside.
        let mixed = try await run(pid: 4500, selectors: ProcessSelectors(patterns: ["busy"], uids: [1001]))
        #expect(mixed.log.isEmpty && mixed.reports.isEmpty)
    }

    @Test func selectorsThatMatch() async throws {
        #expect(try await run(pid: 4600, selectors: ProcessSelectors(uids: [1000])).reports.count == 1)
        #expect(try await run(pid: 4600, selectors: ProcessSelectors(cgroups: ["/sys/fs/cgroup/user.slice/"])).reports.count == 1)
        #expect(try await run(pid: 4600, selectors: ProcessSelectors(patterns: ["bu+sy"], uids: [1000])).reports.count == 1)
    }

    @Test func commandLineMatchesToo() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 4700, comm: "python3", cmdline: ["python3", "/opt/miner.py"])
        let engine = try CPUMonitor(
            configuration: makeConfiguration(selectors: ProcessSelectors(patterns: ["miner\\.py"])),
            root: tree.path, clock: JumpingClock(), controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path),
            safety: testMonitor, store: nil, ticksPerSecond: 100)
        #expect(try await engine.step().watched == [4700])
    }

    /// Found by the VM's cpu-kill-pidfd scenario: a child sampled between fork and exec (or
    /// `prctl(PR_SET_NAME)`) still has its parent's comm, and one sampled before its launcher
    /// moves it into a cgroup is still outside it. Judged once, it was ignored for good.
    @Test func aProcessIsJudgedAgainAfterExecOrMigration() async throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 4800, comm: "pidchurn", uid: 0)
        try tree.addProcess(pid: 4801, comm: "sh", uid: 0, cgroup: "/")
        let clock = JumpingClock()
        let controller = RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path)
        let root = SafetyRules(pid: 9000, ancestors: [8999], uid: 0, isRoot: true)
        let byName = try CPUMonitor(
            configuration: makeConfiguration(limit: 10, window: .seconds(4), selectors: ProcessSelectors(patterns: ["^victim$"])),
            root: tree.path, clock: clock, controller: controller, safety: root, store: nil, ticksPerSecond: 100)
        let byCgroup = try CPUMonitor(
            configuration: makeConfiguration(limit: 10, window: .seconds(4), selectors: ProcessSelectors(cgroups: ["/jobs"])),
            root: tree.path, clock: clock, controller: controller, safety: root, store: nil, ticksPerSecond: 100)
        #expect(try await byName.step().watched.isEmpty)
        #expect(try await byCgroup.step().watched.isEmpty)
        // The same identities (pid, start time): one execs as "victim", the other moves to /jobs.
        try tree.update(pid: 4800, comm: "victim", utime: 0)
        try tree.write("proc/4801/cgroup", "0::/jobs\n")
        clock.set(0.5)
        #expect(try await byName.step().watched == [4800])
        #expect(try await byCgroup.step().watched == [4801])
        var reports: [ResourceReport] = []
        for second in 1...4 {
            try tree.update(pid: 4800, comm: "victim", utime: UInt64(second) * 100)
            try tree.update(pid: 4801, comm: "sh", utime: UInt64(second) * 100)
            clock.set(0.5 + Double(second))
            reports += try await byName.step().reports
            reports += try await byCgroup.step().reports
        }
        #expect(reports.map(\.pid).sorted() == [4800, 4801])
        #expect(controller.log.contains("SIGKILL 4800") && controller.log.contains("SIGKILL 4801"))
    }

    @Test func configurationRefusals() {
        func refusal(_ change: (inout CPUMonitorConfiguration) -> Void) -> String? {
            var configuration = makeConfiguration(selectors: ProcessSelectors(pids: [10]))
            change(&configuration)
            do {
                try configuration.validate()
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.selectors = ProcessSelectors(pids: [1, 10]) }?.contains("refusing --pid 1") == true)
        #expect(refusal { $0.selectors = ProcessSelectors() }?.contains("choose what to watch") == true)
        #expect(refusal { $0.limitPercent = 0 }?.contains("--limit") == true)
        #expect(refusal { $0.limitPercent = .nan }?.contains("--limit") == true)
        #expect(refusal { $0.window = .seconds(-1) }?.contains("--window") == true)
        #expect(refusal { $0.interval = .zero }?.contains("--interval") == true)
        #expect(refusal { $0.interval = .seconds(20) }?.contains("must not exceed") == true)
        #expect(refusal { $0.duration = .zero }?.contains("--duration") == true)
        #expect(refusal { $0.selectors = ProcessSelectors(pids: [-5]) }?.contains("not a process ID") == true)
    }

    @Test func badPatternIsRefused() {
        #expect(throws: CPUMonitorError.self) {
            _ = try CPUMonitor(
                configuration: makeConfiguration(selectors: ProcessSelectors(patterns: ["(unclosed"])),
                root: "/", clock: JumpingClock(), controller: RecordingProcessController(procRoot: "/"), safety: testMonitor,
                store: nil, ticksPerSecond: 100)
        }
    }
}
