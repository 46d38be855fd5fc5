import JouleHardware

/// The pure part of `ProcessEnergyMeter`: turns successive readings (every process's CPU time
/// and switches, /proc/stat, the host's power) into per-process CPU %, wakeups/s, watts and
/// joules since start, and per-unit joules. No I/O, so tests and the benchmark drive it with
/// readings of their own; this is the "attribution per sample" the benchmark times.
public struct ProcessEnergyAccounting: Sendable {
    /// What the meter reads about a process besides numbers, once per identity.
    public struct Label: Sendable, Hashable {
        public var name: String
        public var unit: String?

        public init(name: String, unit: String?) {
            self.name = name
            self.unit = unit
        }
    }

    /// One instant's measurements.
    public struct Reading: Sendable {
        /// Seconds on the meter's clock.
        public var time: Double
        public var processes: [ProcessCPUSample]
        /// One per process, in the same order.
        public var labels: [Label]
        /// The aggregate `cpu` line of /proc/stat.
        public var node: CPUTimes
        public var source: PowerSource
        /// The host's average power since the previous reading; nil when nothing measured it.
        public var hostWatts: Double?

        public init(time: Double, processes: [ProcessCPUSample], labels: [Label], node: CPUTimes, source: PowerSource, hostWatts: Double?) {
            self.time = time
            self.processes = processes
            self.labels = labels
            self.node = node
            self.source = source
            self.hostWatts = hostWatts
        }
    }

    private struct Tracked {
        var cpuNanoseconds: UInt64
        var switches: UInt64?
        var joules: Double?
    }

    public let ticksPerSecond: Int
    private var tracked: [ProcessIdentity: Tracked] = [:]
    private var last: (time: Double, node: CPUTimes)?
    /// Energy attributed to each unit since the first reading.
    public private(set) var unitJoules: [String: Double] = [:]

    public init(ticksPerSecond: Int = CurrentProcess.clockTicksPerSecond) {
        self.ticksPerSecond = max(1, ticksPerSecond)
    }

    /// Accounts for the interval since the previous reading. The first reading is a baseline:
    /// its sample has no interval and no processes.
    public mutating func record(_ reading: Reading) -> ProcessEnergySample {
        let previous = last
        last = (reading.time, reading.node)
        var sample = ProcessEnergySample(timestamp: reading.time, source: reading.source, systemWatts: reading.hostWatts)
        let count = reading.processes.count
        guard let previous, reading.time > previous.time, reading.labels.count == count else {
            var baseline: [ProcessIdentity: Tracked] = [:]
            baseline.reserveCapacity(count)
            for process in reading.processes {
                baseline[process.identity] = Tracked(cpuNanoseconds: process.cpuNanoseconds, switches: process.voluntarySwitches)
            }
            tracked = baseline
            return sample
        }
        let interval = reading.time - previous.time
        sample.intervalSeconds = interval

        // A counter that went backwards (iowait can) counts as no progress.
        let busy = reading.node.busy &- min(reading.node.busy, previous.node.busy)
        let total = reading.node.total &- min(reading.node.total, previous.node.total)
        sample.nodeCPUPercent = reading.node.usagePercent(since: previous.node)
        let split = EnergyAttribution.split(hostJoules: reading.hostWatts.map { $0 * interval }, busyTicks: busy, totalTicks: total)

        // A process not seen before started within the interval: all its CPU time and
        // switches are new. Switches can drop when a thread exits: that counts as none.
        var usages: [EnergyAttribution.Usage] = []
        usages.reserveCapacity(count)
        var switches: [UInt64?] = []
        switches.reserveCapacity(count)
        var earlier: [Tracked?] = []
        earlier.reserveCapacity(count)
        for process in reading.processes {
            let before = tracked[process.identity]
            earlier.append(before)
            let cpu = process.cpuNanoseconds &- min(process.cpuNanoseconds, before?.cpuNanoseconds ?? 0)
            usages.append(EnergyAttribution.Usage(pid: process.pid, cpuSeconds: Double(cpu) / 1e9))
            var delta: UInt64?
            if let now = process.voluntarySwitches {
                if let before {
                    delta = before.switches.map { now &- min(now, $0) }
                } else {
                    delta = now
                }
            }
            switches.append(delta)
        }
        let shares = EnergyAttribution.attribute(
            hostJoules: split?.active, interval: interval, nodeBusySeconds: Double(busy) / Double(ticksPerSecond), usages: usages)

        var next: [ProcessIdentity: Tracked] = [:]
        next.reserveCapacity(count)
        var rows: [ProcessEnergy] = []
        rows.reserveCapacity(count)
        var attributed = 0.0
        for index in 0..<count {
            let process = reading.processes[index]
            let label = reading.labels[index]
            let share = shares[index]
            var joules = earlier[index]?.joules
            if let part = share.joules {
                joules = (joules ?? 0) + part
                attributed += part
                if let unit = label.unit { unitJoules[unit, default: 0] += part }
            }
            next[process.identity] = Tracked(cpuNanoseconds: process.cpuNanoseconds, switches: process.voluntarySwitches, joules: joules)
            let cpuPercent = share.cpuSeconds / interval * 100
            let wakeups = switches[index].map { Double($0) / interval }
            rows.append(ProcessEnergy(
                pid: process.pid, name: label.name, unit: label.unit, cpuPercent: cpuPercent, wakeupsPerSecond: wakeups,
                watts: share.watts, joules: joules,
                energyImpact: EnergyImpact.score(cpuPercent: cpuPercent, wakeupsPerSecond: wakeups)))
        }
        tracked = next
        if let split {
            sample.activeWatts = split.active / interval
            sample.idleWatts = split.idle / interval
            sample.unattributedWatts = max(0, split.active - attributed) / interval
        }
        sample.processes = rows
        sample.unitJoules = unitJoules
        return sample
    }
}
