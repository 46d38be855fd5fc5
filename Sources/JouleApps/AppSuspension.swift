/// How an app's processes are stopped and ended: through its cgroup v2 (`cgroup.freeze`,
/// confirmed by `cgroup.events` `frozen 1`, and `cgroup.kill`), or, where no writable v2 cgroup
/// exists (cgroup v1 machines), by SIGSTOP/SIGCONT and SIGKILL to its process tree, confirmed
/// by every process reading stopped.
package enum AppSuspension: String, Sendable, Hashable, CaseIterable {
    case cgroupFreezer
    case stopSignals
}
