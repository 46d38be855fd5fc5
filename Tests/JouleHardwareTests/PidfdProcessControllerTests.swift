import JouleTesting
import Foundation
import Testing
@testable import JouleHardware

@Suite struct PidfdProcessControllerTests {
    private func spawnSleeper() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        try process.run()
        return process
    }

    @Test func stopsContinuesAndKillsTheRightProcess() throws {
        let child = try spawnSleeper()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let controller = PidfdProcessController()
        let stat = try #require(try controller.procfs.stat(child.processIdentifier))
        let handle = try #require(try controller.open(stat.identity))
        defer { controller.close(handle) }
        #expect(try controller.send(.stop, to: handle))
        var state = try controller.procfs.stat(child.processIdentifier)?.state
        for _ in 0..<100 where state != .stopped {
            usleep(10_000)
            state = try controller.procfs.stat(child.processIdentifier)?.state
        }
        #expect(state == .stopped)
        #expect(try controller.send(.cont, to: handle))
        #expect(try controller.send(.kill, to: handle))
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
        // Reaped: signalling through the old pidfd reports "gone", never another process.
        #expect(try controller.send(.kill, to: handle) == false)
    }

    @Test func refusesAReusedPID() throws {
        let child = try spawnSleeper()
        defer { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
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
        #expect(try controller.readCPUMax(cgroup: "/app.slice") == "max 100000")
        try controller.writeCPUMax(cgroup: "/app.slice", value: "50000 100000")
        #expect(try controller.readCPUMax(cgroup: "/app.slice") == "50000 100000")
        #expect(throws: HardwareError.self) { try controller.readCPUMax(cgroup: "/missing") }
    }
}
