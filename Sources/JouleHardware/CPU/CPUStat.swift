/// One sample of /proc/stat: the whole machine and each online core.
public struct CPUStat: Sendable, Hashable {
    /// One `cpuN` line.
    public struct Core: Sendable, Hashable {
        public var index: Int
        public var times: CPUTimes
        public init(index: Int, times: CPUTimes) {
            self.index = index
            self.times = times
        }
    }

    /// The aggregate `cpu` line.
    public var all: CPUTimes
    /// `cpuN` lines in file order. Offline cores have no line.
    public var perCore: [Core]

    public init(all: CPUTimes, perCore: [Core]) {
        self.all = all
        self.perCore = perCore
    }

    /// Online cores, as `nproc` counts them.
    public var cores: Int { perCore.count }

    /// Whole-machine busy percentage since `earlier`, nil when no tick elapsed.
    public func usagePercent(since earlier: CPUStat) -> Double? {
        all.usagePercent(since: earlier.all)
    }

    /// Per-core busy percentage since `earlier`, for cores present in both samples.
    public func perCoreUsagePercent(since earlier: CPUStat) -> [(index: Int, percent: Double?)] {
        let before = Dictionary(earlier.perCore.map { ($0.index, $0.times) }, uniquingKeysWith: { first, _ in first })
        return perCore.compactMap { core in
            before[core.index].map { (core.index, core.times.usagePercent(since: $0)) }
        }
    }

    /// Parses /proc/stat text. Throws when there is no valid aggregate `cpu` line; a malformed
    /// per-core line is an error too, since a silently missing core would skew every average.
    public static func parse(_ text: String, path: String = "/proc/stat") throws(HardwareError) -> CPUStat {
        var all: CPUTimes?
        var cores: [Core] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard line.hasPrefix("cpu") else { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let label = fields.first else { continue }
            let values = fields.dropFirst().compactMap { UInt64($0) }
            // Every kernel since 2.6.11 writes at least 8 counters; fewer means a cut or garbled line.
            guard values.count == fields.count - 1, values.count >= 8 else {
                throw HardwareError(operation: "parse", path: path, detail: "line \(number + 1): malformed \(label) counters")
            }
            let times = CPUTimes(
                user: values[0], nice: values[1], system: values[2], idle: values[3], iowait: values[4],
                irq: values[5], softirq: values[6], steal: values[7])
            if label == "cpu" {
                all = times
            } else if let index = Int(label.dropFirst(3)), index >= 0 {
                // A repeated core would be compared against the other line of the same name.
                guard !cores.contains(where: { $0.index == index }) else {
                    throw HardwareError(operation: "parse", path: path, detail: "line \(number + 1): duplicate \(label) line")
                }
                cores.append(Core(index: index, times: times))
            } else {
                throw HardwareError(operation: "parse", path: path, detail: "line \(number + 1): unknown label \(label)")
            }
        }
        guard let all else {
            throw HardwareError(operation: "parse", path: path, detail: "no aggregate cpu line")
        }
        return CPUStat(all: all, perCore: cores)
    }
}
