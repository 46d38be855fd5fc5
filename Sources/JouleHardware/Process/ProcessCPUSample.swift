/// One process's CPU counters at one instant, as the sampler reads them: numbers only, so a
/// sample of every process on the machine allocates no strings.
public struct ProcessCPUSample: Sendable, Hashable {
    public var pid: Int32
    public var startTimeTicks: UInt64
    public var utimeTicks: UInt64
    public var stimeTicks: UInt64
    public var state: ProcessState
    public var ppid: Int32
    public var flags: UInt32
    public var threadCount: Int

    public init(
        pid: Int32, startTimeTicks: UInt64, utimeTicks: UInt64, stimeTicks: UInt64,
        state: ProcessState, ppid: Int32, flags: UInt32, threadCount: Int
    ) {
        self.pid = pid
        self.startTimeTicks = startTimeTicks
        self.utimeTicks = utimeTicks
        self.stimeTicks = stimeTicks
        self.state = state
        self.ppid = ppid
        self.flags = flags
        self.threadCount = threadCount
    }

    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTimeTicks: startTimeTicks) }
    public var cpuTicks: UInt64 { ProcessStat.saturatingSum(utimeTicks, stimeTicks) }
    public var isKernelThread: Bool { flags & ProcessStat.kernelThreadFlag != 0 }
}
