@testable import JouleHardware
import JouleTesting
import Foundation
import Testing

@Suite struct ProcFSTests {
    @Test func readsAFixtureProcess() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 300, comm: "my worker", utime: 50, stime: 5, startTime: 777, uid: 1000,
                            cmdline: ["/usr/bin/worker", "--fast"], cgroup: "/app.slice/worker.service")
        try tree.write("proc/300/task/301/stat", ProcTree.statLine(pid: 301, comm: "worker-io", state: "D", utime: 9))
        try tree.write("proc/300/task/301/wchan", "io_schedule")
        try tree.write("proc/300/task/300/wchan", "0")
        try tree.write("proc/300/task/301/stack", "[<0>] io_schedule+0x42/0x70\n[<0>] folio_wait_bit+0x10/0x20\n")
        let procfs = ProcFS(root: tree.path + "/")
        #expect(try procfs.pids() == [300])
        let stat = try #require(try procfs.stat(300))
        #expect(stat.comm == "my worker")
        #expect(stat.cpuTicks == 55)
        #expect(procfs.status(300)?.realUID == 1000)
        #expect(procfs.commandLine(300) == ["/usr/bin/worker", "--fast"])
        #expect(procfs.cgroup(300) == "/app.slice/worker.service")
        #expect(procfs.threadIDs(300) == [300, 301])
        let threads = procfs.threadStats(300)
        #expect(threads.map(\.comm) == ["my worker", "worker-io"])
        #expect(threads.last?.state == .diskSleep)
        #expect(procfs.wchan(300, 300) == nil)
        #expect(procfs.wchan(300, 301) == "io_schedule")
        #expect(procfs.kernelStack(300, 301) == ["io_schedule+0x42/0x70", "folio_wait_bit+0x10/0x20"])
        #expect(procfs.kernelStack(300, 300) == nil)
        #expect(procfs.executablePath(300) == nil)
    }

    @Test func vanishedProcessIsNilNotAnError() throws {
        let tree = try ProcTree()
        let procfs = ProcFS(root: tree.path)
        #expect(try procfs.stat(4242) == nil)
        #expect(procfs.threadIDs(4242) == [])
        #expect(procfs.status(4242) == nil)
        #expect(procfs.commandLine(4242) == nil)
        #expect(procfs.cgroup(4242) == nil)
    }

    @Test func garbageStatIsAnErrorNamingThePath() throws {
        let tree = try ProcTree()
        try tree.write("proc/77/stat", "garbage without parentheses\n")
        let procfs = ProcFS(root: tree.path)
        do {
            _ = try procfs.stat(77)
            Issue.record("expected a parse error")
        } catch {
            #expect(error.operation == "parse")
            #expect(error.path.hasSuffix("proc/77/stat"))
            #expect(error.description.contains("parenthesised"))
        }
    }

    @Test func readsThisLiveProcess() throws {
        let procfs = ProcFS()
        let me = CurrentProcess.pid
        let stat = try #require(try procfs.stat(me))
        #expect(stat.pid == me)
        #expect(stat.ppid == CurrentProcess.parentPID)
        #expect(procfs.status(me)?.realUID == CurrentProcess.realUserID)
        #expect(procfs.threadIDs(me).contains(me))
        #expect(procfs.executablePath(me) != nil)
        #expect(CurrentProcess.clockTicksPerSecond > 0)
    }

    @Test func systemIdentityFromAFixture() throws {
        let tree = try ProcTree()
        try tree.write("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
        try tree.write("proc/sys/kernel/osrelease", "6.1.0-18-arm64\n")
        try tree.write("proc/sys/kernel/arch", "aarch64\n")
        try tree.write("proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4\0")
        try tree.write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\npi:x:1000:1000::/home/pi:/bin/bash\n")
        let identity = SystemIdentity.read(root: tree.path)
        #expect(identity.osVersion == "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-18-arm64 aarch64)")
        #expect(identity.hardwareModel == "Raspberry Pi 4 Model B Rev 1.4")
        #expect(SystemIdentity.userName(uid: 1000, root: tree.path) == "pi")
        #expect(SystemIdentity.userName(uid: 4, root: tree.path) == nil)
        try tree.write("sys/class/dmi/id/product_name", "20L5CTO1WW\n")
        #expect(SystemIdentity.read(root: tree.path).hardwareModel == "20L5CTO1WW")
        let empty = try ProcTree()
        #expect(SystemIdentity.read(root: empty.path).osVersion == nil)
    }

    @Test func atomicWriteReplacesWholeFiles() throws {
        let tree = try ProcTree()
        let dir = tree.path + "/state/reports"
        try FileSystem.makeDirectories(dir)
        try AtomicFile.write("one", to: dir + "/a.txt")
        try AtomicFile.write("two", to: dir + "/a.txt")
        #expect(try FileSystem.readText(dir + "/a.txt") == "two")
        #expect(try FileSystem.listDirectory(dir) == ["a.txt"])
        #expect(throws: HardwareError.self) { try AtomicFile.write([1], to: tree.path + "/missing/x") }
    }
}
