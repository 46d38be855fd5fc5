import JouleWire
import JouleHardware

/// One row of `joule top`: a process over the last interval, or with `--by unit` a systemd
/// unit's processes together. Unknown is nil, never 0.
public struct ProcessEnergy: Sendable, Hashable {
    /// nil for a unit row.
    public var pid: Int32?
    /// The command name (comm), or the unit for a unit row.
    public var name: String
    /// The normalised systemd unit (see `SystemdUnitLabel`); nil when /proc/PID/cgroup has no
    /// cgroup v2 line or could not be read.
    public var unit: String?
    /// 1 for a process; the processes counted in a unit row.
    public var processCount: Int
    /// CPU time in the interval over its length; 100 is one core, as in top.
    public var cpuPercent: Double
    /// Voluntary context switches per second, nil when unread.
    public var wakeupsPerSecond: Double?
    /// The process's part of the node's active power, nil when nothing measures the host.
    public var watts: Double?
    /// Energy attributed since the meter started (measured intervals only); nil while none was
    /// measured. A unit row counts its exited processes too.
    public var joules: Double?
    /// See `EnergyImpact`; nil when the wakeups are unknown.
    public var energyImpact: Double?

    public init(
        pid: Int32?, name: String, unit: String?, processCount: Int = 1, cpuPercent: Double, wakeupsPerSecond: Double?,
        watts: Double?, joules: Double?, energyImpact: Double?
    ) {
        self.pid = pid
        self.name = name
        self.unit = unit
        self.processCount = processCount
        self.cpuPercent = cpuPercent
        self.wakeupsPerSecond = wakeupsPerSecond
        self.watts = watts
        self.joules = joules
        self.energyImpact = energyImpact
    }

    /// How rows are ordered: `--sort energy|cpu|wakeups`.
    public enum Order: String, Sendable, CaseIterable {
        /// Power when the host is measured, else the Energy Impact score.
        case energy
        case cpu
        case wakeups
    }

    /// Largest first, unknown last, then by CPU and PID (or name) so equal rows keep one order.
    /// By energy, rows with power come first (by power), then the rest by their score.
    public static func sorted(_ rows: [ProcessEnergy], by order: Order) -> [ProcessEnergy] {
        func keys(_ row: ProcessEnergy) -> [Double?] {
            switch order {
            case .energy: [row.watts, row.energyImpact, row.cpuPercent]
            case .cpu: [row.cpuPercent]
            case .wakeups: [row.wakeupsPerSecond, row.cpuPercent]
            }
        }
        return rows.sorted { a, b in
            for (x, y) in zip(keys(a), keys(b)) {
                switch (x, y) {
                case let (x?, y?) where x != y: return x > y
                case (_?, nil): return true
                case (nil, _?): return false
                default: continue
                }
            }
            if let p = a.pid, let q = b.pid { return p < q }
            return a.name < b.name
        }
    }

    /// The `joule top --json` process object: the binding keys first, then the score (and for
    /// a unit row, how many processes it holds).
    public var json: JSONObject {
        var object: JSONObject = [
            "pid": .from(pid.map(Int.init)), "name": .string(name), "unit": .from(unit),
            "cpuPercent": .from(cpuPercent, places: 2), "wakeupsPerS": .from(wakeupsPerSecond, places: 2),
            "powerW": .from(watts, places: 3), "energyJ": .from(joules, places: 3),
            "energyImpact": .from(energyImpact, places: 2),
        ]
        if pid == nil { object["processCount"] = .int(processCount) }
        return object
    }
}
