/// Where a cgroup stands with the v2 freezer.
public enum CgroupFreezeState: String, Sendable, Hashable {
    /// `cgroup.events` says `frozen 1`: every task is frozen.
    case frozen
    /// `cgroup.freeze` is 1 but the kernel has not confirmed yet (tasks still reaching the
    /// freezer, or a kernel that updates `frozen` asynchronously).
    case freezing
    /// `cgroup.freeze` is 0.
    case thawed
}
