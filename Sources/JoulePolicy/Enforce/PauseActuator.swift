import JouleHardware

/// Carries out pauses: stops and continues processes, freezes and thaws cgroups. The live
/// actuator signals through pidfds and writes `cgroup.freeze`; tests substitute a recorder.
public protocol PauseActuator: Sendable {
    /// An open hold on a stopped process, so it is continued exactly and never a later owner
    /// of its PID.
    associatedtype Handle: Sendable

    /// Stops the process with this identity; nil when it has exited or its PID now belongs
    /// to another process.
    func stop(_ identity: ProcessIdentity) throws(HardwareError) -> Handle?
    /// Continues a process stopped by `stop`; false when it has exited.
    func resume(_ handle: Handle) throws(HardwareError) -> Bool
    /// Releases the hold. Call exactly once per handle.
    func release(_ handle: Handle)
    /// Continues a process stopped by an earlier, killed run; false when it is gone.
    func resumeLeftover(_ identity: ProcessIdentity) throws(HardwareError) -> Bool

    func freeze(cgroup: String) throws(HardwareError) -> CgroupFreezeState
    func thaw(cgroup: String) throws(HardwareError) -> CgroupFreezeState
    /// The cgroup's state now: a unit restarted while frozen comes back thawed.
    func freezeState(cgroup: String) throws(HardwareError) -> CgroupFreezeState
}

/// The live actuator: pidfds for processes, the cgroup v2 freezer for cgroups. Everything it
/// stops or freezes is recorded in the crash guard tables first (see
/// `Syscalls.installPauseGuards()`), so even a crash continues it.
public struct LivePauseActuator: PauseActuator {
    public let controller: PidfdProcessController
    public let freezer: CgroupFreezer

    public init(procRoot: String = "/", cgroupRoot: String = "/") {
        controller = PidfdProcessController(root: procRoot)
        freezer = CgroupFreezer(root: cgroupRoot)
    }

    public func stop(_ identity: ProcessIdentity) throws(HardwareError) -> PidfdProcessController.Handle? {
        guard let handle = try controller.open(identity) else { return nil }
        guard Syscalls.markPossiblyStopped(identity.pid) else {
            controller.close(handle)
            throw HardwareError(operation: "pause", path: "pid \(identity.pid)", detail: "too many stopped processes to guard")
        }
        do {
            if try controller.send(.stop, to: handle) { return handle }
        } catch {
            Syscalls.unmarkPossiblyStopped(identity.pid)
            controller.close(handle)
            throw error
        }
        Syscalls.unmarkPossiblyStopped(identity.pid)
        controller.close(handle)
        return nil
    }

    public func resume(_ handle: PidfdProcessController.Handle) throws(HardwareError) -> Bool {
        let continued = try controller.send(.cont, to: handle)
        Syscalls.unmarkPossiblyStopped(handle.pid)
        return continued
    }

    public func release(_ handle: PidfdProcessController.Handle) { controller.close(handle) }

    public func resumeLeftover(_ identity: ProcessIdentity) throws(HardwareError) -> Bool {
        guard let handle = try controller.open(identity) else { return false }
        defer { controller.close(handle) }
        return try controller.send(.cont, to: handle)
    }

    public func freeze(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        let file = freezer.freezeFile(cgroup)
        guard Syscalls.markPossiblyFrozen(file) else {
            throw HardwareError(operation: "freeze", path: file, detail: "too many frozen cgroups to guard")
        }
        do {
            return try freezer.freeze(cgroup)
        } catch {
            // Nothing was frozen when the write failed; a failed read-back leaves the mark.
            if (try? freezer.state(cgroup)) == .thawed || !freezer.exists(cgroup) { Syscalls.unmarkPossiblyFrozen(file) }
            throw error
        }
    }

    public func freezeState(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        try freezer.state(cgroup)
    }

    public func thaw(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        let file = freezer.freezeFile(cgroup)
        do {
            let state = try freezer.thaw(cgroup)
            if state == .thawed { Syscalls.unmarkPossiblyFrozen(file) }
            return state
        } catch {
            // A cgroup removed while frozen (its unit stopped) needs no thaw.
            if !freezer.exists(cgroup) { Syscalls.unmarkPossiblyFrozen(file) }
            throw error
        }
    }
}
