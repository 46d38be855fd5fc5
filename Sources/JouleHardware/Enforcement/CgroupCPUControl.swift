/// The cgroup v2 CPU bandwidth files under `ROOT/sys/fs/cgroup`: `cpu.max` of a cgroup, and
/// the `cpu` controller in its parent's `cgroup.subtree_control` (without which `cpu.max` does
/// not exist). ROOT is "/" live, or a fake tree in tests.
public struct CgroupCPUControl: Sendable {
    public let mount: String

    public init(root: String = "/") {
        mount = FileRoot(root).path("/sys/fs/cgroup")
    }

    public func cpuMaxFile(_ cgroup: CgroupPath) -> String { cgroup.directory(mount: mount) + "/cpu.max" }

    public func subtreeControlFile(_ cgroup: CgroupPath) -> String {
        cgroup.directory(mount: mount) + "/cgroup.subtree_control"
    }

    /// The contents of `cpu.max`, e.g. `max 100000`.
    public func readCPUMax(_ cgroup: CgroupPath) throws(HardwareError) -> String {
        try Syscalls.readText(cpuMaxFile(cgroup)).procTrimmed([" ", "\n"])
    }

    /// Writes `cpu.max` in place, e.g. `50000 100000`.
    public func writeCPUMax(_ cgroup: CgroupPath, _ value: String) throws(HardwareError) {
        try Syscalls.writeControlFile(cpuMaxFile(cgroup), value + "\n")
    }

    /// Whether the parent's `cgroup.subtree_control` lists `cpu`; false when unreadable.
    public func cpuEnabled(for cgroup: CgroupPath) -> Bool {
        guard let parent = cgroup.parent, let text = try? Syscalls.readText(subtreeControlFile(parent)) else {
            return false
        }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("cpu")
    }

    /// Writes `+cpu` to the parent's `cgroup.subtree_control` so `cpu.max` appears. Throws for
    /// the root cgroup (it has no parent and no `cpu.max`) and when the kernel refuses (the
    /// grandparent does not delegate `cpu`, the parent holds processes, or no permission).
    public func enableCPU(for cgroup: CgroupPath) throws(HardwareError) {
        guard let parent = cgroup.parent else {
            throw HardwareError(operation: "enable cpu controller", path: mount, detail: "the root cgroup has no cpu.max")
        }
        try Syscalls.writeControlFile(subtreeControlFile(parent), "+cpu\n")
    }

    /// Writes `-cpu` to the parent's `cgroup.subtree_control`, undoing `enableCPU`.
    public func disableCPU(for cgroup: CgroupPath) throws(HardwareError) {
        guard let parent = cgroup.parent else { return }
        try Syscalls.writeControlFile(subtreeControlFile(parent), "-cpu\n")
    }
}
