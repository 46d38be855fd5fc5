import JouleHardware

/// Who the monitor is, for the safety rules; injected so tests can play another user.
public struct MonitorIdentity: Sendable, Equatable {
    public var pid: Int32
    public var ppid: Int32
    public var uid: UInt32
    public var isRoot: Bool

    public init(pid: Int32, ppid: Int32, uid: UInt32, isRoot: Bool) {
        self.pid = pid
        self.ppid = ppid
        self.uid = uid
        self.isRoot = isRoot
    }

    public static func current() -> MonitorIdentity {
        MonitorIdentity(
            pid: Syscalls.processID(), ppid: Syscalls.parentProcessID(), uid: Syscalls.realUserID(),
            isRoot: Syscalls.effectiveUserID() == 0)
    }
}
