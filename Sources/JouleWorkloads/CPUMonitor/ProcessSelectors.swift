import JouleHardware

/// Which processes the monitor watches. Within one kind the values are alternatives; kinds
/// combine like pgrep's criteria: `--match node --uid 1000` watches node processes of uid 1000.
public struct ProcessSelectors: Sendable, Equatable {
    public var pids: Set<Int32>
    /// Regular expressions searched in the command name and in the command line.
    public var patterns: [String]
    /// cgroup v2 paths (as in /proc/PID/cgroup; `/sys/fs/cgroup/app.slice/` and `app.slice`
    /// both become `/app.slice`); a process in a descendant cgroup matches too.
    public var cgroups: [String]
    public var uids: Set<UInt32>

    public init(pids: Set<Int32> = [], patterns: [String] = [], cgroups: [String] = [], uids: Set<UInt32> = []) {
        self.pids = pids
        self.patterns = patterns
        self.cgroups = cgroups.map { CgroupPath($0).description }
        self.uids = uids
    }

    public var isEmpty: Bool { pids.isEmpty && patterns.isEmpty && cgroups.isEmpty && uids.isEmpty }

    /// What the user named that is not there, checked before the monitor starts (a pid that
    /// does not exist or a cgroup nobody is in would otherwise be watched silently forever):
    /// one line per selector. A cgroup counts as there when its directory exists under
    /// `cgroupRoot`/sys/fs/cgroup or a process is in it or below it now (a cgroup v1 or hybrid
    /// machine has no v2 directory to look at, but /proc/PID/cgroup still names it).
    public func missing(procfs: ProcFS, cgroupRoot: String = "/") -> [String] {
        var problems: [String] = []
        for pid in pids.sorted() where (try? procfs.stat(pid)) == nil {
            problems.append("--pid \(pid): no such process")
        }
        let wanted = cgroups.filter { FileSystem.kind(of: FileRoot(cgroupRoot).path("/sys/fs/cgroup") + $0) != .directory }
        guard !wanted.isEmpty else { return problems }
        var inUse = Set<String>()
        for pid in (try? procfs.pids()) ?? [] {
            if let cgroup = procfs.cgroup(pid) { inUse.insert(cgroup) }
        }
        for cgroup in wanted where !inUse.contains(where: { $0 == cgroup || $0.hasPrefix(cgroup == "/" ? "/" : cgroup + "/") }) {
            problems.append("--cgroup \(cgroup): no such cgroup (no directory under /sys/fs/cgroup, and no process in it)")
        }
        return problems
    }

    /// With only `--pid` given, the pids the safety rules forbid, each with why: when every
    /// one is forbidden the monitor would watch nothing and say so only as it runs.
    public func protectedPIDs(procfs: ProcFS, safety: SafetyRules) -> [String] {
        guard patterns.isEmpty, cgroups.isEmpty, uids.isEmpty else { return [] }
        var problems: [String] = []
        for pid in pids.sorted() {
            guard let stat = try? procfs.stat(pid) else { continue }
            let uid = procfs.status(pid)?.realUID
            if let protection = safety.protection(pid: pid, ppid: stat.ppid, isKernelThread: stat.isKernelThread, uid: uid) {
                problems.append("--pid \(pid) (\(stat.comm)): not watched: \(protection.monitorDescription)")
            } else {
                return []
            }
        }
        return problems
    }
}
