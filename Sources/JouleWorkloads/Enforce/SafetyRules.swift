import JouleHardware

/// The one set of safety rules for every engine that acts on processes (enforce, the CPU
/// monitor, the app supervisor): never pid 1, never joule or its ancestors, never kernel
/// threads, never a cgroup holding any of them, and never other users' work unless root.
/// Who joule is comes in as a value, so tests can play another process or user.
public struct SafetyRules: Sendable, Hashable {
    public var pid: Int32
    /// The parent first, then each ancestor up to (not including) pid 1.
    public var ancestors: [Int32]
    public var uid: UInt32
    public var isRoot: Bool
    /// The cgroups of joule and its parent: acting on any of them, or on a cgroup above one,
    /// would act on joule.
    public var ownCgroups: [String]
    /// The cgroup of pid 1.
    public var initCgroup: String?

    public init(pid: Int32, ancestors: [Int32], uid: UInt32, isRoot: Bool, ownCgroups: [String] = [], initCgroup: String? = nil) {
        self.pid = pid
        self.ancestors = ancestors
        self.uid = uid
        self.isRoot = isRoot
        self.ownCgroups = ownCgroups
        self.initCgroup = initCgroup
    }

    /// This process, its ancestry and cgroups, read from `procfs`.
    public static func current(procfs: ProcFS = ProcFS()) -> SafetyRules {
        let pid = CurrentProcess.pid
        var ancestors: [Int32] = []
        var next = CurrentProcess.parentPID
        while next > 1, ancestors.count < 256, !ancestors.contains(next) {
            ancestors.append(next)
            guard let stat = try? procfs.stat(next) else { break }
            next = stat.ppid
        }
        let own = ([pid] + ancestors.prefix(1)).compactMap { procfs.cgroup($0) }
        return SafetyRules(
            pid: pid, ancestors: ancestors, uid: CurrentProcess.realUserID, isRoot: CurrentProcess.isRoot,
            ownCgroups: own, initCgroup: procfs.cgroup(1))
    }

    /// The rule that protects a process, in order: pid 1, joule, its parent and ancestors,
    /// kernel threads (PF_KTHREAD, kthreadd and its children), then ownership (an unknown
    /// owner counts as another user).
    public func protection(pid: Int32, ppid: Int32, isKernelThread: Bool, uid: UInt32?) -> Protection? {
        if pid == 1 { return .initProcess }
        if pid == self.pid { return .jouleItself }
        if ancestors.first == pid { return .jouleParent }
        if ancestors.contains(pid) { return .jouleAncestor }
        if isKernelThread || pid == 2 || ppid == 2 { return .kernelThread }
        if !isRoot && uid != self.uid { return .otherUser }
        return nil
    }

    /// The rule that protects a cgroup because of what it holds: joule, its parent or pid 1
    /// (in it or below it).
    public func protection(holding cgroup: String) -> Protection? {
        let path = CgroupPath(cgroup)
        if ownCgroups.contains(where: { path.contains(CgroupPath($0)) }) { return .containsJoule }
        if let initCgroup, path.contains(CgroupPath(initCgroup)) { return .containsInit }
        return nil
    }

    /// The rule that protects a cgroup: what it holds, then, unless root, its owner
    /// (`owner` nil = unknown, which counts as another user).
    public func protection(cgroup: String, owner: UInt32?) -> Protection? {
        if let held = protection(holding: cgroup) { return held }
        if !isRoot && owner != uid { return .otherUser }
        return nil
    }
}
