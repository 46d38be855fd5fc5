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
}
