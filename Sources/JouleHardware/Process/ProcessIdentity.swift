/// Who a process is: a PID alone is reused, but (pid, start time in clock ticks since boot)
/// names one process for the life of the system.
public struct ProcessIdentity: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var startTimeTicks: UInt64

    public init(pid: Int32, startTimeTicks: UInt64) {
        self.pid = pid
        self.startTimeTicks = startTimeTicks
    }

    public var description: String { "\(pid)@\(startTimeTicks)" }
}
