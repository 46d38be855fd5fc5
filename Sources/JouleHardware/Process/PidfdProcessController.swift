/// Live process control: pidfd_open(2) then an identity check, pidfd_send_signal(2),
/// and cgroup files under `ROOT/sys/fs/cgroup`.
public struct PidfdProcessController: ProcessController {
    /// A pidfd and the PID it was opened for (for messages).
    public struct Handle: Sendable, Hashable {
        public let pid: Int32
        let fd: Int32
    }

    public let procfs: ProcFS
    public let cgroupMount: String

    public init(root: String = "/") {
        procfs = ProcFS(root: root)
        cgroupMount = procfs.rootPrefix + "/sys/fs/cgroup"
    }

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

    public func send(_ signal: ProcessSignal, to handle: Handle) throws(HardwareError) -> Bool {
        do {
            try Syscalls.pidfdSendSignal(handle.fd, signal: signal.number, pid: handle.pid)
            return true
        } catch {
            if error.errno == .noSuchProcess { return false }
            throw error
        }
    }

    public func close(_ handle: Handle) { Syscalls.close(handle.fd) }

    public func cpuMaxPath(_ cgroup: String) -> String {
        let relative = cgroup.hasPrefix("/") ? String(cgroup.dropFirst()) : cgroup
        return relative.isEmpty ? cgroupMount + "/cpu.max" : "\(cgroupMount)/\(relative)/cpu.max"
    }

    public func readCPUMax(cgroup: String) throws(HardwareError) -> String {
        try Syscalls.readText(cpuMaxPath(cgroup)).procTrimmed([" ", "\n"])
    }

    public func writeCPUMax(cgroup: String, value: String) throws(HardwareError) {
        try Syscalls.writeControlFile(cpuMaxPath(cgroup), value + "\n")
    }
}
