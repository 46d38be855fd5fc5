/// One process's CPU time at one instant, as the sampler reads it: numbers only, so a
/// sample of every process on the machine allocates no strings.
public struct ProcessCPUSample: Sendable, Hashable {
    public var pid: Int32
    public var startTimeTicks: UInt64
    /// User + system CPU time of the whole process (all threads, live and exited), in
    /// nanoseconds. Monotonic per identity. From /proc/PID/stat it has clock-tick resolution;
    /// for single-threaded processes it advances with /proc/PID/schedstat's nanoseconds.
    public var cpuNanoseconds: UInt64
    /// State, parent and flags as of the last /proc/PID/stat read, which for a
    /// single-threaded process may be up to `ProcessSampler.statRefreshSamples` samples old.
    public var state: ProcessState
    public var ppid: Int32
    public var flags: UInt32
    public var threadCount: Int
    /// Voluntary context switches of all live threads (each is a sleep the process woke from:
    /// `joule top`'s wakeups); nil unless asked for, or when unreadable. Threads that exited
    /// take their count with them, so it can drop: compare with care.
    public var voluntarySwitches: UInt64?

    public init(
        pid: Int32, startTimeTicks: UInt64, cpuNanoseconds: UInt64, state: ProcessState, ppid: Int32,
        flags: UInt32, threadCount: Int, voluntarySwitches: UInt64? = nil
    ) {
        self.voluntarySwitches = voluntarySwitches
        self.pid = pid
        self.startTimeTicks = startTimeTicks
        self.cpuNanoseconds = cpuNanoseconds
        self.state = state
        self.ppid = ppid
        self.flags = flags
        self.threadCount = threadCount
    }

    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTimeTicks: startTimeTicks) }
    public var isKernelThread: Bool { flags & ProcessStat.kernelThreadFlag != 0 }
}
