@testable import JouleHardware
import JouleTesting
import Foundation
import Testing

@Suite struct PidfdProcessControllerTests {
    private func spawnSleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        try process.run()
        return process
    }

    @Test func stopsContinuesAndKillsTheRightProcess() async throws {
        let child = try spawnSleeper()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let controller = PidfdProcessController()
        let stat = try #require(try controller.procfs.stat(child.processIdentifier))
        let handle = try #require(try controller.open(stat.identity))
        defer { controller.close(handle) }
        #expect(try controller.stop(handle))
        #expect(Syscalls.isMarkedPossiblyStopped(stat.pid))  // a crash now would continue it
        #expect(await LiveProcessControlTests.wait(child.processIdentifier, for: "T"))
        #expect(try controller.resume(handle))
        #expect(!Syscalls.isMarkedPossiblyStopped(stat.pid))
        #expect(try controller.kill(handle))
        await child.exitStatus()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
        // Reaped: signalling through the old pidfd reports "gone", never another process.
        #expect(try controller.kill(handle) == false)
        #expect(try controller.stop(handle) == false)
        #expect(!Syscalls.isMarkedPossiblyStopped(stat.pid))
    }

    @Test func refusesAReusedPID() throws {
        let child = try spawnSleeper()
        defer { kill(child.processIdentifier, SIGKILL) }  // Foundation reaps it
        let controller = PidfdProcessController()
        let stat = try #require(try controller.procfs.stat(child.processIdentifier))
        let stale = ProcessIdentity(pid: stat.pid, startTimeTicks: stat.startTimeTicks &+ 1)
        #expect(try controller.open(stale) == nil)
        #expect(try controller.open(ProcessIdentity(pid: Int32.max - 1, startTimeTicks: 1)) == nil)
    }

    @Test func cpuMaxOnAFixtureCgroup() throws {
        let tree = try ProcTree()
        try tree.write("sys/fs/cgroup/app.slice/cpu.max", "max 100000\n")
        let controller = PidfdProcessController(root: tree.path)
        let slice = CgroupPath("/app.slice")
        #expect(try controller.readCPUMax(cgroup: slice) == "max 100000")
        try controller.writeCPUMax(cgroup: slice, value: "50000 100000")
        #expect(try controller.readCPUMax(cgroup: slice) == "50000 100000")
        #expect(throws: HardwareError.self) { try controller.readCPUMax(cgroup: CgroupPath("/missing")) }
    }

    @Test func cpuMaxFailuresAreTheFileSystemsOwn() throws {
        let tree = try ProcTree()
        // No cpu.max: the parent does not delegate the cpu controller.
        try tree.write("sys/fs/cgroup/app.slice/cgroup.procs", "")
        // A directory in place of cpu.max: a write fails even for root (EISDIR).
        try FileManager.default.createDirectory(
            atPath: tree.path + "/sys/fs/cgroup/odd.slice/cpu.max", withIntermediateDirectories: true)
        let controller = PidfdProcessController(root: tree.path)
        #expect(throws: HardwareError.self) { try controller.writeCPUMax(cgroup: CgroupPath("/app.slice"), value: "1 2") }
        do {
            try controller.writeCPUMax(cgroup: CgroupPath("/odd.slice"), value: "1 2")
            Issue.record("a directory took a cpu.max write")
        } catch {
            #expect(error.errno == .isDirectory)
        }
    }

    @Test func theCPUControllerIsEnabledAndDisabledInTheParent() throws {
        let tree = try ProcTree()
        try tree.write("sys/fs/cgroup/user.slice/cgroup.subtree_control", "memory\n")
        try tree.write("sys/fs/cgroup/user.slice/app.scope/cgroup.procs", "")
        let controller = PidfdProcessController(root: tree.path)
        let scope = CgroupPath("/user.slice/app.scope")
        let control = tree.path + "/sys/fs/cgroup/user.slice/cgroup.subtree_control"
        #expect(!controller.cpuControllerEnabled(for: scope))
        try controller.enableCPUController(for: scope)
        #expect(try String(contentsOfFile: control, encoding: .utf8) == "+cpu\n")
        try tree.write("sys/fs/cgroup/user.slice/cgroup.subtree_control", "cpu memory\n")  // as the kernel shows it
        #expect(controller.cpuControllerEnabled(for: scope))
        try controller.disableCPUController(for: scope)
        #expect(try String(contentsOfFile: control, encoding: .utf8) == "-cpu\n")
        // The root cgroup has no parent to enable anything in.
        #expect(throws: HardwareError.self) { try controller.enableCPUController(for: .root) }
    }

    @Test func processesOfACgroupTreeIncludeDescendants() throws {
        let tree = try ProcTree()
        try tree.write("sys/fs/cgroup/app.slice/cgroup.procs", "10\n11\n")
        try tree.write("sys/fs/cgroup/app.slice/a.scope/cgroup.procs", "12\n")
        try tree.write("sys/fs/cgroup/app.slice/a.scope/b/cgroup.procs", "13\n")
        try tree.write("sys/fs/cgroup/other.slice/cgroup.procs", "20\n")
        let controller = PidfdProcessController(root: tree.path)
        #expect(controller.processes(inTree: CgroupPath("/app.slice")).sorted() == [10, 11, 12, 13])
        #expect(controller.processes(inTree: CgroupPath("/missing")).isEmpty)
    }
}

/// Live process control: the freezer through a fake cgroup root, signals on a real child.
@Suite struct LiveProcessControlTests {
    @Test func freezesAndThawsThroughTheRoot() throws {
        let tree = try ProcTree()
        try tree.cgroup("/system.slice/backup.service")
        let controller = PidfdProcessController(cgroupRoot: tree.path)
        #expect(try controller.freeze(cgroup: "/system.slice/backup.service") == .freezing)
        let freeze = tree.path + "/sys/fs/cgroup/system.slice/backup.service/cgroup.freeze"
        #expect(try String(contentsOfFile: freeze, encoding: .utf8) == "1\n")
        try tree.write("sys/fs/cgroup/system.slice/backup.service/cgroup.events", "populated 1\nfrozen 1\n")
        #expect(try controller.freeze(cgroup: "/system.slice/backup.service") == .frozen)
        #expect(try controller.thaw(cgroup: "/system.slice/backup.service") == .thawed)
        #expect(try String(contentsOfFile: freeze, encoding: .utf8) == "0\n")
        #expect(throws: HardwareError.self) { try controller.freeze(cgroup: "/missing.slice") }
    }

    static func state(_ pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// Waits (up to 20 s, with Task.sleep) until the scheduler state is `letter`.
    static func wait(_ pid: Int32, for letter: String) async -> Bool {
        await eventually(every: .milliseconds(10)) { state(pid) == letter }
    }

    @Test func stopsAndContinuesARealChildByIdentity() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["600"]
        try child.run()
        let pid = child.processIdentifier
        defer {
            // Not waited for: Foundation reaps it, and a defer cannot await.
            kill(pid, SIGKILL)
            kill(pid, SIGCONT)
        }
        let stat = try #require(try ProcFS().stat(pid))
        let controller = PidfdProcessController()
        // A stale identity (same PID, other start time) is never signalled.
        #expect(try controller.stop(ProcessIdentity(pid: pid, startTimeTicks: stat.startTimeTicks + 1)) == nil)
        let handle = try #require(try controller.stop(stat.identity))
        #expect(await Self.wait(pid, for: "T"))
        #expect(try controller.resume(handle))
        controller.close(handle)
        #expect(await Self.wait(pid, for: "S"))
        kill(pid, SIGSTOP)
        #expect(await Self.wait(pid, for: "T"))
        #expect(try controller.resumeLeftover(stat.identity))
        #expect(await Self.wait(pid, for: "S"))
    }
}
