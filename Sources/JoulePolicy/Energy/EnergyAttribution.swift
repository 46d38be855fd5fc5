/// Splits what the host used over one interval between processes by their share of the CPU
/// time the node was busy, as Kepler and Scaphandre do: process energy = host energy ×
/// Δprocess CPU ÷ Δnode busy CPU. Pure: the caller measures, this divides.
///
/// The shares add up to the host's figure at most: when the processes sampled used more CPU
/// than /proc/stat's busy time (the two are read at slightly different instants), the larger
/// sum is the divisor, so no process is given energy the host did not use. Energy the node spent
/// with no process to charge (interrupts, kernel threads not sampled) stays unattributed.
public enum EnergyAttribution {
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
    ///   - hostJoules: what the host used in the interval (RAPL or the battery), nil when
    ///     nothing measures it.
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
