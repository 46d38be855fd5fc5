/// Splits what the host used over one interval between processes, as Kepler (0.10 and later,
/// `internal/monitor/node.go` and `process.go`) does:
///
///     node active energy = host energy × Δnode busy ticks ÷ Δnode total ticks     (/proc/stat)
///     process energy     = node active energy × Δprocess CPU ÷ Δnode busy CPU
///
/// The rest of the host's energy is idle: the machine draws it whether or not anything runs,
/// so no process is charged for it (Scaphandre charges busy-time shares of the whole host
/// instead, which gives a process that runs alone on an idle laptop the laptop's whole idle
/// draw). What the host used adds up exactly: Σ process + unattributed active + idle = host,
/// where unattributed is busy time no sampled process accounts for (interrupts, softirqs,
/// processes that exited within the interval). Pure: the caller measures, this divides.
///
/// When the processes sampled used more CPU than /proc/stat's busy time (the two are read at
/// slightly different instants), the larger sum is the divisor, so no process is given energy
/// the host did not use.
public enum EnergyAttribution {
    /// Kepler's split of the host's energy by the node's busy share of its CPU time; nil when
    /// the host was not measured or no tick elapsed (a static fixture: no share to split by).
    public static func split(hostJoules: Double?, busyTicks: UInt64, totalTicks: UInt64) -> (active: Double, idle: Double)? {
        guard let host = hostJoules, host.isFinite, host >= 0, totalTicks > 0 else { return nil }
        let active = host * Double(min(busyTicks, totalTicks)) / Double(totalTicks)
        return (active, host - active)
    }

    /// One process's CPU time in the interval.
    public struct Usage: Sendable, Hashable {
        public var pid: Int32
        public var cpuSeconds: Double

        public init(pid: Int32, cpuSeconds: Double) {
            self.pid = pid
            self.cpuSeconds = cpuSeconds
        }
    }

    /// One process's part: nil energy and power when nothing measured the host.
    public struct Share: Sendable, Hashable {
        public var pid: Int32
        public var cpuSeconds: Double
        public var joules: Double?
        public var watts: Double?

        public init(pid: Int32, cpuSeconds: Double, joules: Double?, watts: Double?) {
            self.pid = pid
            self.cpuSeconds = cpuSeconds
            self.joules = joules
            self.watts = watts
        }
    }

    /// - Parameters:
    ///   - hostJoules: the energy to divide: the node's active energy in the interval (see
    ///     `split`), nil when nothing measures the host.
    ///   - interval: the interval's length in seconds.
    ///   - nodeBusySeconds: CPU seconds the node was busy in the interval, all cores together.
    public static func attribute(hostJoules: Double?, interval: Double, nodeBusySeconds: Double, usages: [Usage]) -> [Share] {
        var total = 0.0
        for usage in usages where usage.cpuSeconds > 0 { total += usage.cpuSeconds }
        let divisor = max(nodeBusySeconds, total)
        let energy = hostJoules.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return usages.map { usage in
            let cpu = max(usage.cpuSeconds, 0)
            guard let energy else { return Share(pid: usage.pid, cpuSeconds: cpu, joules: nil, watts: nil) }
            let joules = divisor > 0 ? energy * cpu / divisor : 0
            return Share(pid: usage.pid, cpuSeconds: cpu, joules: joules, watts: interval > 0 ? joules / interval : nil)
        }
    }
}
