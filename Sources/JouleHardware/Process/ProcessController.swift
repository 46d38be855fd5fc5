/// Acts on processes and cgroups. The live implementation signals through pidfds; tests
/// substitute a recorder. Handles are opaque to callers.
public protocol ProcessController: Sendable {
    associatedtype Handle: Sendable

    /// Opens a handle on the process with this identity: nil when it has exited or its PID
    /// now belongs to another process. Opening comes before any decision to signal, so the
    /// handle can never reach a later owner of the PID.
    func open(_ identity: ProcessIdentity) throws(HardwareError) -> Handle?

    /// Sends `signal`; false when the process has already exited.
    func send(_ signal: ProcessSignal, to handle: Handle) throws(HardwareError) -> Bool

    /// Releases the handle. Call exactly once per opened handle.
    func close(_ handle: Handle)

    /// The contents of a cgroup v2 `cpu.max` (e.g. `max 100000`), for `cgroup` as written in
    /// /proc/PID/cgroup.
    func readCPUMax(cgroup: String) throws(HardwareError) -> String

    /// Writes a cgroup v2 `cpu.max` (e.g. `50000 100000`).
    func writeCPUMax(cgroup: String, value: String) throws(HardwareError)
}
