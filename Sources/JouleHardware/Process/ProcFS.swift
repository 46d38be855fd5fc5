/// Reads per-process files under `ROOT/proc`. ROOT is "/" on a live system or a fixture tree.
///
/// A process can exit between any two reads. Every reader answers nil (or an empty list) for a
/// process that has vanished (ENOENT, ESRCH) instead of throwing; optional details that the
/// kernel hides (exe and stack of other users' processes) are nil as well.
public struct ProcFS: Sendable {
    public let root: String
    /// ROOT without a trailing slash, empty for "/": prefix any absolute path with it.
    public let rootPrefix: String
    /// `ROOT/proc`, without a trailing slash.
    public let procPath: String

    public init(root: String = "/") {
        self.root = root
        rootPrefix = FileRoot(root).prefix
        procPath = FileRoot(root).path("/proc")
    }

    /// Whether an error means the process (or thread) is gone.
    public static func isVanished(_ error: HardwareError) -> Bool {
        error.errno == .noEntry || error.errno == .noSuchProcess
    }

    public func processPath(_ pid: Int32) -> String { "\(procPath)/\(pid)" }
    public func taskPath(_ pid: Int32, _ tid: Int32) -> String { "\(procPath)/\(pid)/task/\(tid)" }

    /// All PIDs, ascending.
    public func pids() throws(HardwareError) -> [Int32] {
        try Syscalls.listNumericEntries(procPath).sorted()
    }

    /// /proc/PID/stat; nil when the process has gone. Throws on unreadable or garbage content.
    public func stat(_ pid: Int32) throws(HardwareError) -> ProcessStat? {
        try readStat(processPath(pid) + "/stat")
    }

    /// /proc/PID/task/TID/stat: the thread's name, state and CPU time.
    public func threadStat(_ pid: Int32, _ tid: Int32) throws(HardwareError) -> ProcessStat? {
        try readStat(taskPath(pid, tid) + "/stat")
    }

    /// The TIDs of a process, ascending; empty when it has gone.
    public func threadIDs(_ pid: Int32) -> [Int32] {
        (try? Syscalls.listNumericEntries(processPath(pid) + "/task").sorted()) ?? []
    }

    /// The stats of every thread still present, ascending by TID.
    public func threadStats(_ pid: Int32) -> [ProcessStat] {
        threadIDs(pid).compactMap { try? threadStat(pid, $0) }
    }

    /// The owner, from /proc/PID/status.
    public func status(_ pid: Int32) -> ProcessStatus? {
        guard let text = try? Syscalls.readText(processPath(pid) + "/status") else { return nil }
        return ProcessStatus.parse(text)
    }

    /// argv from /proc/PID/cmdline; empty for kernel threads and zombies, nil when gone.
    public func commandLine(_ pid: Int32) -> [String]? {
        guard let bytes = try? Syscalls.readFile(processPath(pid) + "/cmdline", limit: 1 << 17) else {
            return nil
        }
        return Self.parseCommandLine(bytes)
    }

    /// The executable's path (readlink /proc/PID/exe); nil when hidden (another user's
    /// process without privilege), a kernel thread, or gone.
    public func executablePath(_ pid: Int32) -> String? {
        try? Syscalls.readLink(processPath(pid) + "/exe")
    }

    /// The cgroup v2 path (`0::/path` in /proc/PID/cgroup); nil without a v2 line.
    public func cgroup(_ pid: Int32) -> String? {
        guard let text = try? Syscalls.readText(processPath(pid) + "/cgroup") else { return nil }
        return Self.parseCgroup(text)
    }

    /// Where the thread sleeps in the kernel (/proc/PID/task/TID/wchan); nil when running,
    /// unknown or hidden (the kernel writes `0` then).
    public func wchan(_ pid: Int32, _ tid: Int32) -> String? {
        guard let text = try? Syscalls.readText(taskPath(pid, tid) + "/wchan") else { return nil }
        let symbol = text.procTrimmed([" ", "\n", "\0"])
        return symbol.isEmpty || symbol == "0" ? nil : symbol
    }

    /// The thread's kernel stack (/proc/PID/task/TID/stack), usually readable only by root;
    /// nil when unreadable.
    public func kernelStack(_ pid: Int32, _ tid: Int32) -> [String]? {
        guard let text = try? Syscalls.readText(taskPath(pid, tid) + "/stack") else { return nil }
        return Self.parseKernelStack(text)
    }

    private func readStat(_ path: String) throws(HardwareError) -> ProcessStat? {
        let bytes: [UInt8]
        do {
            bytes = try Syscalls.readFile(path, limit: 4096)
        } catch {
            if Self.isVanished(error) { return nil }
            throw error
        }
        // A reaped process's open stat can read back empty: that is a vanish, not garbage.
        if bytes.isEmpty { return nil }
        do {
            return try ProcessStat.parse(bytes)
        } catch {
            throw HardwareError(operation: "parse", path: path, detail: error.description)
        }
    }

    // MARK: pure decoders

    /// NUL-separated arguments; a trailing NUL ends the last one.
    public static func parseCommandLine(_ bytes: [UInt8]) -> [String] {
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        if bytes.last == 0 { arguments.removeLast() }
        return bytes.isEmpty ? [] : arguments
    }

    /// The path of the `0::` (unified hierarchy) line; v1 lines are ignored.
    public static func parseCgroup(_ text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            let path = String(line.dropFirst(3))
            return path.isEmpty ? nil : path
        }
        return nil
    }

    /// Frames without the `[<0>] ` address prefix, e.g. `do_nanosleep+0x6e/0x160`.
    public static func parseKernelStack(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            var frame = Substring(line)
            if frame.hasPrefix("["), let end = frame.firstIndex(of: "]") {
                frame = frame[frame.index(after: end)...]
            }
            let trimmed = frame.procTrimmed([" ", "\t"])
            return trimmed.isEmpty ? nil : trimmed
        }
    }
}

extension StringProtocol {
    /// Trims characters from both ends (Foundation-free, and named apart from Foundation's).
    func procTrimmed(_ set: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
