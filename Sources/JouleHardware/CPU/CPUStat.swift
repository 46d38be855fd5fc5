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
        try parse(bytes: Array(text.utf8), path: path)
    }

    /// The same over the file's bytes, in one pass: every poll reads /proc/stat, which on a big
    /// machine is tens of KB (an `intr` line of thousands of counters), and splitting it as
    /// Characters cost a `watch` poll 200 k instructions on a 12-core fixture (callgrind).
    /// Fields are separated by spaces; a counter is decimal digits that fit 64 bits.
    public static func parse(bytes: [UInt8], path: String = "/proc/stat") throws(HardwareError) -> CPUStat {
        var all: CPUTimes?
        var cores: [Core] = []
        var values: [UInt64] = []
        values.reserveCapacity(12)
        var number = 0, start = 0
        let end = bytes.count
        let space = UInt8(ascii: " ")
        while start <= end {
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: "\n") { stop += 1 }
            defer {
                number += 1
                start = stop + 1
            }
            guard stop - start >= 3, bytes[start] == UInt8(ascii: "c"), bytes[start + 1] == UInt8(ascii: "p"),
                bytes[start + 2] == UInt8(ascii: "u")
            else { continue }
            var i = start
            while i < stop, bytes[i] != space { i += 1 }
            let label = String(decoding: bytes[start..<i], as: UTF8.self)
            values.removeAll(keepingCapacity: true)
            var fields = 1
            while true {
                while i < stop, bytes[i] == space { i += 1 }
                if i == stop { break }
                fields += 1
                var value: UInt64 = 0, valid = true
                while i < stop, bytes[i] != space {
                    let digit = bytes[i] &- UInt8(ascii: "0")
                    if digit > 9 {
                        valid = false
                    } else if valid {
                        let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                        let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
                        value = sum
                        valid = !o1 && !o2
                    }
                    i += 1
                }
                if valid { values.append(value) }
            }
            // Every kernel since 2.6.11 writes at least 8 counters; fewer means a cut or garbled line.
            guard values.count == fields - 1, values.count >= 8 else {
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
