import JouleHardware

/// Why a matched process or cgroup is never paused.
public enum PauseProtection: String, Sendable, Hashable, CustomStringConvertible {
    case initProcess
    case enforcerItself
    case enforcerAncestor
    case kernelThread
    case otherUser
    case containsEnforcer
    case containsInit

    public var description: String {
        switch self {
        case .initProcess: "pid 1 is never paused"
        case .enforcerItself: "joule enforce never pauses itself"
        case .enforcerAncestor: "joule enforce never pauses its parent or ancestors"
        case .kernelThread: "kernel threads are never paused"
        case .otherUser: "another user's work is paused only when running as root"
        case .containsEnforcer: "the cgroup holds joule enforce or its parent"
        case .containsInit: "the cgroup holds pid 1"
        }
    }
}

/// Who the enforcer is, for the safety rules; injected so tests can play another user.
public struct EnforcerIdentity: Sendable, Hashable {
    public var pid: Int32
    /// The parent first, then each ancestor up to (not including) pid 1.
    public var ancestors: [Int32]
    public var uid: UInt32
    public var isRoot: Bool
    /// The cgroups of the enforcer and its parent, and of pid 1: freezing any of them, or an
    /// ancestor of one, would freeze the enforcer or the system.
    public var ownCgroups: [String]
    public var initCgroup: String?

    public init(pid: Int32, ancestors: [Int32], uid: UInt32, isRoot: Bool, ownCgroups: [String], initCgroup: String?) {
        self.pid = pid
        self.ancestors = ancestors
        self.uid = uid
        self.isRoot = isRoot
        self.ownCgroups = ownCgroups
        self.initCgroup = initCgroup
    }

    /// This process, its ancestry and cgroups read from `procfs`.
    public static func current(procfs: ProcFS = ProcFS()) -> EnforcerIdentity {
        let pid = Syscalls.processID()
        var ancestors: [Int32] = []
        var next = Syscalls.parentProcessID()
        while next > 1, ancestors.count < 256, !ancestors.contains(next) {
            ancestors.append(next)
            guard let stat = try? procfs.stat(next) else { break }
            next = stat.ppid
        }
        let own = ([pid] + ancestors.prefix(1)).compactMap { procfs.cgroup($0) }
        return EnforcerIdentity(
            pid: pid, ancestors: ancestors, uid: Syscalls.realUserID(), isRoot: Syscalls.effectiveUserID() == 0,
            ownCgroups: own, initCgroup: procfs.cgroup(1))
    }

    /// The rule that protects a process, in order: pid 1, self, ancestors, kernel threads
    /// (PF_KTHREAD, kthreadd and its children), then ownership (an unknown owner counts as
    /// another user).
    public func protection(pid: Int32, ppid: Int32, isKernelThread: Bool, uid: UInt32?) -> PauseProtection? {
        if pid == 1 { return .initProcess }
        if pid == self.pid { return .enforcerItself }
        if ancestors.contains(pid) { return .enforcerAncestor }
        if isKernelThread || pid == 2 || ppid == 2 { return .kernelThread }
        if !isRoot && uid != self.uid { return .otherUser }
        return nil
    }

    /// The rule that protects a cgroup: one holding the enforcer, its parent or pid 1 (itself
    /// or below it), and, unless root, one owned by another user (`owner` nil = unknown).
    public func protection(cgroup: String, owner: UInt32?) -> PauseProtection? {
        func holds(_ member: String) -> Bool {
            member == cgroup || member.hasPrefix(cgroup.hasSuffix("/") ? cgroup : cgroup + "/")
        }
        if ownCgroups.contains(where: holds) { return .containsEnforcer }
        if let initCgroup, holds(initCgroup) { return .containsInit }
        if !isRoot && owner != uid { return .otherUser }
        return nil
    }
}
