/// Process control for every engine: stops, continues and kills processes through handles
/// that can never reach a later owner of a PID, freezes and thaws cgroups, and sets cgroup
/// CPU bandwidth. The live implementation (`PidfdProcessController`) owns the crash guard:
/// whatever it stops or freezes is recorded before it acts and forgotten once continued or
/// thawed, so callers never touch that table. Tests substitute a recorder (JouleTesting).
///
/// Cgroups are named as /proc/PID/cgroup names them (`/system.slice/x.service`).
public protocol ProcessController: Sendable {
    associatedtype Handle: Sendable

    /// Opens a handle on the process with this identity: nil when it has exited or its PID
    /// now belongs to another process. Opening comes before any decision to signal, so the
    /// handle can never reach a later owner of the PID.
    func open(_ identity: ProcessIdentity) throws(HardwareError) -> Handle?

    /// SIGSTOP; false when the process has already exited. Throws without signalling when the
    /// stop cannot be guarded (a crash must be able to continue it).
    func stop(_ handle: Handle) throws(HardwareError) -> Bool

    /// SIGCONT; false when the process has already exited. Either way it is no longer ours
    /// to continue.
    func resume(_ handle: Handle) throws(HardwareError) -> Bool

    /// SIGKILL; false when the process has already exited.
    func kill(_ handle: Handle) throws(HardwareError) -> Bool

    /// Releases the handle. Call exactly once per opened handle.
    func close(_ handle: Handle)

    /// Writes `1` to the cgroup's `cgroup.freeze` and reads back the state.
    func freeze(cgroup: String) throws(HardwareError) -> CgroupFreezeState
    /// Writes `0` to the cgroup's `cgroup.freeze` and reads back the state.
    func thaw(cgroup: String) throws(HardwareError) -> CgroupFreezeState
    /// The cgroup's state now: a unit restarted while frozen comes back thawed.
    func freezeState(cgroup: String) throws(HardwareError) -> CgroupFreezeState

    /// The contents of a cgroup v2 `cpu.max` (e.g. `max 100000`).
    func readCPUMax(cgroup: CgroupPath) throws(HardwareError) -> String
    /// Writes a cgroup v2 `cpu.max` (e.g. `50000 100000`).
    func writeCPUMax(cgroup: CgroupPath, value: String) throws(HardwareError)
    /// Whether the parent's `cgroup.subtree_control` already enables `cpu`.
    func cpuControllerEnabled(for cgroup: CgroupPath) -> Bool
    /// Writes `+cpu` to the parent's `cgroup.subtree_control`.
    func enableCPUController(for cgroup: CgroupPath) throws(HardwareError)
    /// Writes `-cpu` to the parent's `cgroup.subtree_control`.
    func disableCPUController(for cgroup: CgroupPath) throws(HardwareError)
    /// The PIDs in the cgroup and its descendants now.
    func processes(inTree cgroup: CgroupPath) -> [Int32]
}

extension ProcessController {
    /// Opens and stops the process with this identity; nil when it has exited or its PID now
    /// belongs to another process. The handle stays open until `close`.
    public func stop(_ identity: ProcessIdentity) throws(HardwareError) -> Handle? {
        guard let handle = try open(identity) else { return nil }
        do {
            if try stop(handle) { return handle }
        } catch {
            close(handle)
            throw error
        }
        close(handle)
        return nil
    }

    /// Continues a process stopped by an earlier, killed run; false when it is gone.
    public func resumeLeftover(_ identity: ProcessIdentity) throws(HardwareError) -> Bool {
        guard let handle = try open(identity) else { return false }
        defer { close(handle) }
        return try resume(handle)
    }
}
