import Foundation
import JouleHardware

/// A throwaway fixture root with a kernel-shaped proc/ tree (and sys/fs/cgroup/ when asked),
/// written in place (never by rename) so descriptors held open by a sampler see updates as
/// they would on /proc. Removed when released.
public final class ProcTree: Sendable {
    public let root: URL

    public init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("joule-proc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("proc"), withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    public var path: String { root.path }

    /// A full 52-field stat line in the kernel's format.
    public static func statLine(
        pid: Int32, comm: String, state: String = "S", ppid: Int32 = 1, flags: UInt32 = 4_194_304,
        utime: UInt64 = 0, stime: UInt64 = 0, threads: Int = 1, startTime: UInt64 = 1000
    ) -> String {
        let fields: [String] = [
            state, "\(ppid)", "\(pid)", "\(pid)", "0", "-1", "\(flags)", "100", "0", "0", "0",
            "\(utime)", "\(stime)", "0", "0", "20", "0", "\(threads)", "0", "\(startTime)",
            "3133440", "412", "18446744073709551615",
        ] + Array(repeating: "0", count: 29)
        return "\(pid) (\(comm)) " + fields.joined(separator: " ") + "\n"
    }

    public func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: url.path) {
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } else {
            try Data(text.utf8).write(to: url)
        }
    }

    /// proc/PID/status (or a task's): the lines joule reads, with the context switch counts
    /// when given (the kernel always prints them; older fixtures lacked them).
    public static func statusText(pid: Int32, comm: String, ppid: Int32 = 1, uid: UInt32 = 1000, voluntarySwitches: UInt64? = nil) -> String {
        var text = "Name:\t\(comm)\nPid:\t\(pid)\nPPid:\t\(ppid)\nUid:\t\(uid)\t\(uid)\t\(uid)\t\(uid)\n"
        if let voluntarySwitches {
            text += "voluntary_ctxt_switches:\t\(voluntarySwitches)\nnonvoluntary_ctxt_switches:\t7\n"
        }
        return text
    }

    /// Writes proc/PID/{stat,status,cmdline,cgroup} and one task for the main thread.
    public func addProcess(
        pid: Int32, comm: String, state: String = "S", ppid: Int32 = 1, flags: UInt32 = 4_194_304,
        utime: UInt64 = 0, stime: UInt64 = 0, startTime: UInt64 = 1000, uid: UInt32 = 1000,
        cmdline: [String]? = nil, cgroup: String = "/user.slice/user-1000.slice/session-1.scope",
        voluntarySwitches: UInt64? = nil
    ) throws {
        let stat = Self.statLine(
            pid: pid, comm: comm, state: state, ppid: ppid, flags: flags, utime: utime, stime: stime,
            startTime: startTime)
        try write("proc/\(pid)/stat", stat)
        try write("proc/\(pid)/task/\(pid)/stat", stat)
        let status = Self.statusText(pid: pid, comm: comm, ppid: ppid, uid: uid, voluntarySwitches: voluntarySwitches)
        try write("proc/\(pid)/status", status)
        try write("proc/\(pid)/task/\(pid)/status", status)
        try write("proc/\(pid)/cmdline", (cmdline ?? [comm]).map { $0 + "\0" }.joined())
        try write("proc/\(pid)/cgroup", "0::\(cgroup)\n")
    }

    /// Rewrites only the CPU counters (and optionally the start time) of a process.
    public func update(pid: Int32, comm: String, ppid: Int32 = 1, utime: UInt64, stime: UInt64 = 0, startTime: UInt64 = 1000) throws {
        let stat = Self.statLine(pid: pid, comm: comm, ppid: ppid, utime: utime, stime: stime, startTime: startTime)
        try write("proc/\(pid)/stat", stat)
        try write("proc/\(pid)/task/\(pid)/stat", stat)
    }

    /// A cgroup directory with a freezer: `cgroup.freeze` and `cgroup.events`.
    public func cgroup(_ path: String, frozen: Bool = false) throws {
        let directory = "sys/fs/cgroup" + CgroupPath(path).description
        try write(directory + "/cgroup.freeze", frozen ? "1\n" : "0\n")
        try write(directory + "/cgroup.events", "populated 1\nfrozen \(frozen ? 1 : 0)\n")
    }

    public func remove(pid: Int32) throws {
        try FileManager.default.removeItem(at: root.appendingPathComponent("proc/\(pid)"))
    }
}
