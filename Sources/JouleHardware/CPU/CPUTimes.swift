/// Cumulative CPU time of one `cpu` line of /proc/stat, in clock ticks.
public struct CPUTimes: Sendable, Hashable {
    public var user: UInt64, nice: UInt64, system: UInt64, idle: UInt64, iowait: UInt64
    public var irq: UInt64, softirq: UInt64, steal: UInt64

    public init(
        user: UInt64, nice: UInt64, system: UInt64, idle: UInt64, iowait: UInt64 = 0,
        irq: UInt64 = 0, softirq: UInt64 = 0, steal: UInt64 = 0
    ) {
        self.user = user
        self.nice = nice
        self.system = system
        self.idle = idle
        self.iowait = iowait
        self.irq = irq
        self.softirq = softirq
        self.steal = steal
    }

    /// All ticks. guest and guest_nice are already counted inside user and nice, so they are
    /// left out rather than counted twice.
    public var total: UInt64 { user &+ nice &+ system &+ idle &+ iowait &+ irq &+ softirq &+ steal }

    /// Ticks spent working: everything but idle and iowait.
    public var busy: UInt64 { total &- min(total, idle &+ iowait) }

    /// Busy share in percent between `earlier` and self, or nil when no tick elapsed (a static
    /// fixture, or the same sample twice). Counters that went backwards (iowait does on some
    /// kernels) count as no progress rather than as a huge wrapped value.
    public func usagePercent(since earlier: CPUTimes) -> Double? {
        let totalDelta = total > earlier.total ? total - earlier.total : 0
        guard totalDelta > 0 else { return nil }
        let busyDelta = busy > earlier.busy ? busy - earlier.busy : 0
        return min(100, Double(busyDelta) / Double(totalDelta) * 100)
    }
}
