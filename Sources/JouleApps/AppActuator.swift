import JouleHardware
import JouleWorkloads

/// What suspends, resumes, signals and measures one supervised app: its cgroup
/// (`CgroupAppActuator`) or, where no writable cgroup v2 exists, its process tree
/// (`ProcessTreeActuator`). Called only from the supervisor's actor; every call is a few
/// syscalls.
package protocol AppActuator: Sendable {
    var suspension: AppSuspension { get }
    /// The app's cgroup, for the list; nil for a process tree.
    var cgroup: String? { get }
    /// What a pause would touch now (the journal records these before `pause`).
    func targets() -> [PauseTarget]
    /// Freezes or stops `targets`.
    func pause(_ targets: [PauseTarget]) throws(HardwareError)
    /// Whether the pause is complete: `frozen 1` in `cgroup.events`, or every process of the
    /// tree stopped (`T`).
    func isPaused() -> Bool
    /// Thaws, or continues every process of the tree (whoever stopped it).
    func resume() throws(HardwareError)
    /// SIGTERM or SIGKILL to every process of the app.
    func signalAll(_ signal: ProcessSignal)
    /// CPU time the app has used, in nanoseconds; nil when unreadable.
    func cpuNanoseconds() -> UInt64?
}
