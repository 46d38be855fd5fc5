import Foundation
@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Testing

/// Selectors resolved on a fake /proc and cgroup tree, with the safety rules applied.
@Suite struct ProcWorkloadResolverTests {
    static let me = SafetyRules(
        pid: 900, ancestors: [800], uid: 1000, isRoot: false,
        ownCgroups: ["/user.slice/user-1000.slice/session-2.scope"], initCgroup: "/init.scope")

    static func resolve(_ tree: ProcTree, _ selectors: [WorkloadSelector], as identity: SafetyRules = me) -> WorkloadResolution {
        ProcWorkloadResolver(procRoot: tree.path, cgroupRoot: tree.path, safety: identity)
            .resolve(WorkloadClass(name: "c", level: .deferrable, selectors: selectors))
    }

    static func pids(_ targets: [PauseTarget]) -> [Int32] {
        targets.compactMap { if case .process(let identity, _) = $0 { identity.pid } else { nil } }
    }

    @Test func processNamesRegexesAndCommandLines() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 1, comm: "systemd", ppid: 0, uid: 0)
        try tree.addProcess(pid: 2, comm: "kthreadd", ppid: 0, flags: 0x208040, uid: 0)
        try tree.addProcess(pid: 10, comm: "ffmpeg", cmdline: ["/usr/bin/ffmpeg", "-i", "in.mkv", "out.mp4"])
        try tree.addProcess(pid: 11, comm: "ffmpeg", uid: 1001)
        try tree.addProcess(pid: 12, comm: "ffmpeg", state: "Z")
        try tree.addProcess(pid: 13, comm: "tracker-miner-f", cmdline: ["/usr/libexec/tracker-miner-fs-3"])
        try tree.addProcess(pid: 14, comm: "python3", cmdline: ["python3", "/opt/transcode.py", "--fast"])
        try tree.addProcess(pid: 800, comm: "ffmpeg")  // the enforcer's parent, pretending
        try tree.addProcess(pid: 900, comm: "ffmpeg")  // the enforcer itself, pretending

        let byName = Self.resolve(tree, [.process("ffmpeg")])
        #expect(Self.pids(byName.targets) == [10])
        #expect(byName.protected.map(\.reason) == [.otherUser, .jouleParent, .jouleItself])
        var root = Self.me
        root.isRoot = true
        #expect(Self.pids(Self.resolve(tree, [.process("ffmpeg")], as: root).targets) == [10, 11])

        // comm is cut to 15 bytes: a longer name is checked against argv[0].
        #expect(Self.pids(Self.resolve(tree, [.process("tracker-miner-fs-3")]).targets) == [13])
        #expect(Self.pids(Self.resolve(tree, [.process("tracker-miner-fs-9")]).targets) == [])
        #expect(Self.pids(Self.resolve(tree, [.processRegex("^ffm")]).targets) == [10])
        #expect(Self.pids(Self.resolve(tree, [.commandRegex("transcode\\.py")]).targets) == [14])
        // Kernel threads and pid 1 never match into targets.
        let all = Self.resolve(tree, [.processRegex(".")], as: root)
        #expect(!Self.pids(all.targets).contains(1) && !Self.pids(all.targets).contains(2))
        #expect(all.protected.contains { $0.reason == .initProcess } && all.protected.contains { $0.reason == .kernelThread })
        // Two selectors naming one process give one target.
        #expect(Self.pids(Self.resolve(tree, [.process("ffmpeg"), .processRegex("ffmpeg")]).targets) == [10])
    }

    @Test func pidFiles() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "indexer", startTime: 77)
        try tree.write("run/indexer.pid", "10\n")
        try tree.write("run/spaced.pid", "  10 \n")
        try tree.write("run/garbage.pid", "ten\n")
        try tree.write("run/gone.pid", "4000000\n")
        let found = Self.resolve(tree, [.pidFile(tree.path + "/run/indexer.pid")])
        #expect(found.targets == [.process(ProcessIdentity(pid: 10, startTimeTicks: 77), name: "indexer")])
        #expect(Self.pids(Self.resolve(tree, [.pidFile(tree.path + "/run/spaced.pid")]).targets) == [10])
        let garbage = Self.resolve(tree, [.pidFile(tree.path + "/run/garbage.pid")])
        #expect(garbage.targets.isEmpty)
        #expect(garbage.problems.first?.contains("expected a PID on the first line, found \"ten\"") == true)
        // A missing file or a dead PID: the daemon is not running, nothing to do, no problem.
        #expect(Self.resolve(tree, [.pidFile(tree.path + "/run/none.pid")]) == WorkloadResolution())
        #expect(Self.resolve(tree, [.pidFile(tree.path + "/run/gone.pid")]) == WorkloadResolution())
    }

    @Test func unitsAreFoundThroughTheCgroupsTheirProcessesAreIn() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 20, comm: "restic", cgroup: "/system.slice/restic-backup.service")
        try tree.addProcess(pid: 21, comm: "sh", cgroup: "/system.slice/restic-backup.service/payload")
        try tree.addProcess(pid: 22, comm: "syncthing", cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/syncthing.service")
        try tree.cgroup("/system.slice/restic-backup.service")
        try tree.cgroup("/user.slice/user-1000.slice/user@1000.service/app.slice/syncthing.service")
        var root = Self.me
        root.isRoot = true
        let restic = Self.resolve(tree, [.unit("restic-backup.service")], as: root)
        #expect(restic.targets == [.cgroup("/system.slice/restic-backup.service")])
        let user = Self.resolve(tree, [.unit("syncthing.service")], as: root)
        #expect(user.targets == [.cgroup("/user.slice/user-1000.slice/user@1000.service/app.slice/syncthing.service")])
        #expect(Self.resolve(tree, [.unit("stopped.service")], as: root) == WorkloadResolution())
        // A slice holding the enforcer is never frozen.
        let missing = Self.resolve(tree, [.cgroup("/nope.slice")], as: root)
        #expect(missing.targets.isEmpty)
        #expect(missing.problems.first?.contains("no such cgroup") == true)
        #expect(Self.resolve(tree, [.cgroup("/user.slice")], as: root).protected.map(\.reason) == [.containsJoule])
        #expect(Self.resolve(tree, [.cgroup("/system.slice/restic-backup.service")], as: root).targets.count == 1)
    }

    @Test func aliveMeansSameStartTimeAndNotAZombie() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 30, comm: "a", startTime: 100)
        try tree.addProcess(pid: 31, comm: "b", state: "Z", startTime: 100)
        let resolver = ProcWorkloadResolver(procRoot: tree.path, cgroupRoot: tree.path, safety: Self.me)
        #expect(resolver.isAlive(ProcessIdentity(pid: 30, startTimeTicks: 100)))
        #expect(!resolver.isAlive(ProcessIdentity(pid: 30, startTimeTicks: 101)))
        #expect(!resolver.isAlive(ProcessIdentity(pid: 31, startTimeTicks: 100)))
        #expect(!resolver.isAlive(ProcessIdentity(pid: 32, startTimeTicks: 100)))
    }
}
