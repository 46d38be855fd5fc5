import Foundation

/// A root with a fake /proc and /sys/fs/cgroup, for resolving selectors without touching the
/// machine's processes.
struct FakeProcRoot {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("joule-fakeproc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/proc", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/sys/fs/cgroup", withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    func write(_ text: String, _ path: String) throws {
        let url = URL(fileURLWithPath: root + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// One process: stat (fields 1–22), status (Uid), cmdline and cgroup.
    func process(
        _ pid: Int32, comm: String, ppid: Int32 = 1, state: String = "S", flags: UInt32 = 0x400000, uid: UInt32 = 1000,
        start: UInt64 = 5000, arguments: [String]? = nil, cgroup: String = "/user.slice/user-1000.slice/session-2.scope"
    ) throws {
        try write("\(pid) (\(comm)) \(state) \(ppid) \(pid) \(pid) 0 -1 \(flags) 0 0 0 0 10 5 0 0 20 0 1 0 \(start) 0 0\n", "/proc/\(pid)/stat")
        try write("Name:\t\(comm)\nUid:\t\(uid)\t\(uid)\t\(uid)\t\(uid)\n", "/proc/\(pid)/status")
        try write((arguments ?? [comm]).map { $0 + "\0" }.joined(), "/proc/\(pid)/cmdline")
        try write("0::\(cgroup)\n", "/proc/\(pid)/cgroup")
    }

    /// A cgroup directory with a freezer.
    func cgroup(_ path: String, frozen: Bool = false) throws {
        try write(frozen ? "1\n" : "0\n", "/sys/fs/cgroup\(path)/cgroup.freeze")
        try write("populated 1\nfrozen \(frozen ? 1 : 0)\n", "/sys/fs/cgroup\(path)/cgroup.events")
    }
}
