import JouleHardware

/// What the monitor learns about a process once, when it first sees its identity.
public struct ProcessFacts: Sendable, Equatable {
    public var identity: ProcessIdentity
    public var name: String
    public var ppid: Int32
    public var isKernelThread: Bool
    /// Real UID; nil when /proc/PID/status was unreadable.
    public var uid: UInt32?
    /// argv; nil when unreadable (not asked for, or the process went).
    public var commandLine: [String]?
    /// cgroup v2 path; nil without a unified hierarchy.
    public var cgroup: String?

    public init(
        identity: ProcessIdentity, name: String, ppid: Int32, isKernelThread: Bool, uid: UInt32?,
        commandLine: [String]?, cgroup: String?
    ) {
        self.identity = identity
        self.name = name
        self.ppid = ppid
        self.isKernelThread = isKernelThread
        self.uid = uid
        self.commandLine = commandLine
        self.cgroup = cgroup
    }

    public var pid: Int32 { identity.pid }
}
