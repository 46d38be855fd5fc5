/// Facts about this process that policy needs (who we are, our parent, our environment),
/// so no code outside the gateway calls getpid(2), getuid(2) or reads `environ` itself.
public enum CurrentProcess {
    public static var pid: Int32 { Syscalls.processID() }
    public static var parentPID: Int32 { Syscalls.parentProcessID() }
    public static var realUserID: UInt32 { Syscalls.realUserID() }
    public static var effectiveUserID: UInt32 { Syscalls.effectiveUserID() }
    /// Whether the effective UID is 0: root may act on other users' work.
    public static var isRoot: Bool { Syscalls.effectiveUserID() == 0 }
    /// The environment as a dictionary.
    public static func environment() -> [String: String] { Syscalls.environment() }
    /// sysconf(_SC_CLK_TCK): the unit of utime/stime/starttime in /proc/PID/stat.
    public static var clockTicksPerSecond: Int { Syscalls.clockTicksPerSecond() }
    /// A closed stdout must not kill a process that holds work paused or stopped (SIGPIPE):
    /// writes fail with EPIPE instead.
    public static func ignoreBrokenPipe() { Syscalls.ignoreSignal(Syscalls.brokenPipeSignal) }
}

extension CurrentProcess {
    /// Blocks the calling thread for `span` (nanosleep(2), resumed after signals), for a
    /// command that must wait between two samples and has nothing else to do.
    public static func sleep(for span: Duration) { Syscalls.sleep(for: span) }
}

extension CurrentProcess {
    /// Ends the process with `status` (exit(3): atexit handlers run, stdio is flushed).
    public static func exit(_ status: Int32) -> Never { Syscalls.exit(status) }
}
