/// Live process control: pidfd_open(2) then an identity check, pidfd_send_signal(2), the
/// cgroup v2 freezer and CPU bandwidth files under `ROOT/sys/fs/cgroup`.
///
/// Every process it stops is recorded in the stopped-process table before SIGSTOP and
/// forgotten after SIGCONT, SIGKILL or once gone; every cgroup it freezes likewise (see
/// `CgroupFreezer`). With the handlers of `installCrashGuards()` a crash continues and thaws
/// them all.
public struct PidfdProcessController: ProcessController {
    /// A pidfd and the PID it was opened for (for messages and the crash guard).
    public struct Handle: Sendable, Hashable {
        public let pid: Int32
        let fd: Int32
    }

    public let procfs: ProcFS
    public let freezer: CgroupFreezer
    public let cpu: CgroupCPUControl

    /// `root` prefixes /proc; `cgroupRoot` prefixes /sys/fs/cgroup (default: `root`).
    public init(root: String = "/", cgroupRoot: String? = nil) {
        procfs = ProcFS(root: root)
        freezer = CgroupFreezer(root: cgroupRoot ?? root)
        cpu = CgroupCPUControl(root: cgroupRoot ?? root)
    }

    /// Installs the crash handlers that continue every stopped process and thaw every frozen
    /// cgroup, then die of the original signal. Call once, from the main thread, at startup.
    public static func installCrashGuards() { Syscalls.installPauseGuards() }

    public func open(_ identity: ProcessIdentity) throws(HardwareError) -> Handle? {
        let fd: Int32
        do {
            fd = try Syscalls.pidfdOpen(identity.pid)
        } catch {
            if ProcFS.isVanished(error) { return nil }
            throw error
        }
        // The pidfd names whoever held the PID at open time. If /proc still shows the same
        // start time now, that was our process: a PID is not reused while its owner lives.
        let current: ProcessStat?
        do {
            current = try procfs.stat(identity.pid)
        } catch {
            Syscalls.close(fd)
            throw error
        }
        guard let current, current.startTimeTicks == identity.startTimeTicks else {
            Syscalls.close(fd)
            return nil
        }
        return Handle(pid: identity.pid, fd: fd)
    }

    public func stop(_ handle: Handle) throws(HardwareError) -> Bool {
        guard Syscalls.markPossiblyStopped(handle.pid) else {
            throw HardwareError(operation: "stop", path: "pid \(handle.pid)", detail: "too many stopped processes to guard")
        }
        do {
            if try send(.stop, to: handle) { return true }
        } catch {
            Syscalls.unmarkPossiblyStopped(handle.pid)
            throw error
        }
        Syscalls.unmarkPossiblyStopped(handle.pid)
        return false
    }

    public func resume(_ handle: Handle) throws(HardwareError) -> Bool {
        let continued = try send(.cont, to: handle)
        Syscalls.unmarkPossiblyStopped(handle.pid)
        return continued
    }

    public func kill(_ handle: Handle) throws(HardwareError) -> Bool {
        let killed = try send(.kill, to: handle)
        Syscalls.unmarkPossiblyStopped(handle.pid)
        return killed
    }

    /// SIGTERM; false when the process has already exited. A stopped process does not act on
    /// it until continued, so callers continue (or thaw) first.
    public func terminate(_ handle: Handle) throws(HardwareError) -> Bool { try send(.term, to: handle) }

    private func send(_ signal: ProcessSignal, to handle: Handle) throws(HardwareError) -> Bool {
        do {
            try Syscalls.pidfdSendSignal(handle.fd, signal: signal.number, pid: handle.pid)
            return true
        } catch {
            if error.errno == .noSuchProcess { return false }
            throw error
        }
    }

    public func close(_ handle: Handle) { Syscalls.close(handle.fd) }

    public func freeze(cgroup: String) throws(HardwareError) -> CgroupFreezeState { try freezer.freeze(cgroup) }
    public func thaw(cgroup: String) throws(HardwareError) -> CgroupFreezeState { try freezer.thaw(cgroup) }
    public func freezeState(cgroup: String) throws(HardwareError) -> CgroupFreezeState { try freezer.state(cgroup) }

    public func readCPUMax(cgroup: CgroupPath) throws(HardwareError) -> String { try cpu.readCPUMax(cgroup) }
    public func writeCPUMax(cgroup: CgroupPath, value: String) throws(HardwareError) {
        try cpu.writeCPUMax(cgroup, value)
    }
    public func cpuControllerEnabled(for cgroup: CgroupPath) -> Bool { cpu.cpuEnabled(for: cgroup) }
    public func enableCPUController(for cgroup: CgroupPath) throws(HardwareError) { try cpu.enableCPU(for: cgroup) }
    public func disableCPUController(for cgroup: CgroupPath) throws(HardwareError) { try cpu.disableCPU(for: cgroup) }
    public func processes(inTree cgroup: CgroupPath) -> [Int32] { freezer.processesInTree(cgroup.description) }
}
