import Foundation
import Testing
@testable import JouleHardware

/// The cgroup v2 freezer on a fake cgroup tree (ROOT/sys/fs/cgroup/...), and on the real
/// /sys/fs/cgroup when this machine lets us create a child cgroup there.
@Suite struct CgroupFreezerTests {
    /// A fake tree with one cgroup: `cgroup.freeze` 0 and `cgroup.events` not frozen.
    static func fakeTree(_ cgroup: String = "system.slice/backup.service") throws -> (root: String, directory: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("joule-cgroup-\(UUID().uuidString)").path
        let directory = root + "/sys/fs/cgroup/" + cgroup
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "0\n".write(toFile: directory + "/cgroup.freeze", atomically: false, encoding: .utf8)
        try "populated 1\nfrozen 0\n".write(toFile: directory + "/cgroup.events", atomically: false, encoding: .utf8)
        try "4242\n4243\n".write(toFile: directory + "/cgroup.procs", atomically: false, encoding: .utf8)
        return (root, directory)
    }

    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func freezeWritesOneAndReadsBackTheKernelsAnswer() throws {
        let (root, directory) = try Self.fakeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let freezer = CgroupFreezer(root: root)
        #expect(freezer.exists("/system.slice/backup.service"))
        #expect(freezer.directory("system.slice/backup.service/") == directory)
        // The fake kernel has not confirmed yet: freezing.
        #expect(try freezer.freeze("/system.slice/backup.service") == .freezing)
        #expect(try Self.read(directory + "/cgroup.freeze") == "1\n")
        // The freezer keeps its own crash guard entry, until the cgroup is thawed.
        #expect(Syscalls.isMarkedPossiblyFrozen(directory + "/cgroup.freeze"))
        // The kernel reports every task frozen.
        try "populated 1\nfrozen 1\n".write(toFile: directory + "/cgroup.events", atomically: false, encoding: .utf8)
        #expect(try freezer.state("/system.slice/backup.service") == .frozen)
        #expect(try freezer.thaw("/system.slice/backup.service") == .thawed)
        #expect(try Self.read(directory + "/cgroup.freeze") == "0\n")
        #expect(!Syscalls.isMarkedPossiblyFrozen(directory + "/cgroup.freeze"))
        #expect(freezer.processes("/system.slice/backup.service") == [4242, 4243])
        #expect(freezer.children("/system.slice") == ["/system.slice/backup.service"])
    }

    @Test func aCgroupWithoutAFreezerIsAClearError() throws {
        let (root, _) = try Self.fakeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let freezer = CgroupFreezer(root: root)
        // The parent has no cgroup.freeze (as the root cgroup, or cgroup v1).
        #expect(throws: HardwareError.self) { try freezer.freeze("/system.slice") }
        do {
            _ = try freezer.freeze("/system.slice")
        } catch {
            #expect(error.errno == .noEntry)
            #expect(error.path == root + "/sys/fs/cgroup/system.slice/cgroup.freeze")
        }
        // A freeze that wrote nothing leaves no crash guard entry behind.
        #expect(!Syscalls.isMarkedPossiblyFrozen(root + "/sys/fs/cgroup/system.slice/cgroup.freeze"))
        #expect(!freezer.exists("/nope.slice"))
    }

    @Test func garbageInTheFreezeFileIsNamed() throws {
        let (root, directory) = try Self.fakeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "maybe\n".write(toFile: directory + "/cgroup.freeze", atomically: false, encoding: .utf8)
        #expect(throws: HardwareError.self) { try CgroupFreezer(root: root).state("/system.slice/backup.service") }
    }

    @Test func parsesTheFrozenKey() {
        #expect(CgroupFreezer.parseFrozen("populated 1\nfrozen 1\n") == true)
        #expect(CgroupFreezer.parseFrozen("populated 0\nfrozen 0") == false)
        #expect(CgroupFreezer.parseFrozen("populated 1\n") == nil)
        #expect(CgroupFreezer.parseFrozen("frozen x\n") == nil)
        #expect(CgroupFreezer.parseFrozen("") == nil)
    }

    @Test func theFrozenGuardTableKeepsAndForgetsPaths() {
        let path = "/tmp/joule-guard-\(UUID().uuidString)/cgroup.freeze"
        #expect(Syscalls.markPossiblyFrozen(path))
        #expect(Syscalls.markPossiblyFrozen(path))  // idempotent
        Syscalls.unmarkPossiblyFrozen(path)
        #expect(!Syscalls.markPossiblyFrozen(""))
        #expect(!Syscalls.markPossiblyFrozen(String(repeating: "x", count: 5000)))
    }

    /// A child cgroup of ours on the real v2 hierarchy, when the machine allows it.
    static var realFreezerAvailable: Bool {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return false }
        let own = "/sys/fs/cgroup" + line.dropFirst(3)
        return FileManager.default.fileExists(atPath: own + "/cgroup.freeze")
            && FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
            && access(own, W_OK) == 0
    }

    @Test(.enabled(if: realFreezerAvailable,
                   "skipped: no writable cgroup v2 hierarchy with cgroup.freeze here (this machine mounts cgroup v1 or a read-only /sys/fs/cgroup)"))
    func freezesARealCgroup() throws {
        let text = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
        let own = String(try #require(text.split(separator: "\n").first { $0.hasPrefix("0::") }).dropFirst(3))
        let child = (own.hasSuffix("/") ? own : own + "/") + "joule-test-\(UUID().uuidString.prefix(8))"
        let freezer = CgroupFreezer()
        try FileManager.default.createDirectory(atPath: freezer.directory(child), withIntermediateDirectories: false)
        defer {
            _ = try? freezer.thaw(child)
            rmdir(freezer.directory(child))
        }
        // An empty cgroup freezes at once.
        #expect(try freezer.freeze(child) == .frozen)
        #expect(try freezer.thaw(child) == .thawed)
    }
}
