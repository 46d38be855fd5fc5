import JouleWire
import JouleHardware

/// What `ProcessEnergyMeter` measured over one interval: the host's power, how it splits into
/// the node's active and idle parts, and every process's share. Watts are averages over the
/// interval; unknown is nil, never 0.
public struct ProcessEnergySample: Sendable {
    /// Unix seconds at the end of the interval.
    public var timestamp: Double
    /// Which figure stands for the host, where it comes from, and why better ones were passed over.
    public var source: PowerSource
    /// The interval's length; nil for the first reading, a baseline.
    public var intervalSeconds: Double?
    /// The host's power (RAPL's average over the interval, or the battery's discharge rate).
    public var systemWatts: Double?
    /// systemWatts × the node's busy share of its CPU time: what processes are charged from.
    public var activeWatts: Double?
    /// The rest of systemWatts, charged to no process.
    public var idleWatts: Double?
    /// Active power that no sampled process accounts for (interrupts, processes that exited).
    public var unattributedWatts: Double?
    /// Busy share of all cores in the interval (100 = every core busy); nil when no tick elapsed.
    public var nodeCPUPercent: Double?
    /// Every process sampled (the baseline has none).
    public var processes: [ProcessEnergy]
    /// Energy attributed to each unit since the meter started, exited processes included.
    public var unitJoules: [String: Double]

    public init(
        timestamp: Double, source: PowerSource, intervalSeconds: Double? = nil, systemWatts: Double? = nil,
        activeWatts: Double? = nil, idleWatts: Double? = nil, unattributedWatts: Double? = nil,
        nodeCPUPercent: Double? = nil, processes: [ProcessEnergy] = [], unitJoules: [String: Double] = [:]
    ) {
        self.timestamp = timestamp
        self.source = source
        self.intervalSeconds = intervalSeconds
        self.systemWatts = systemWatts
        self.activeWatts = activeWatts
        self.idleWatts = idleWatts
        self.unattributedWatts = unattributedWatts
        self.nodeCPUPercent = nodeCPUPercent
        self.processes = processes
        self.unitJoules = unitJoules
    }

    /// The processes grouped by unit (`--by unit`): CPU, wakeups, power and score added up,
    /// energy the unit's total since start. Processes whose unit is unknown form one row with
    /// a nil unit.
    public var units: [ProcessEnergy] {
        Dictionary(grouping: processes, by: \.unit).map { unit, members in
            let measured = members.compactMap(\.joules)
            return ProcessEnergy(
                pid: nil, name: unit ?? "(unknown unit)", unit: unit, processCount: members.count,
                cpuPercent: members.reduce(0) { $0 + $1.cpuPercent },
                wakeupsPerSecond: Self.total(members.map(\.wakeupsPerSecond)), watts: Self.total(members.map(\.watts)),
                joules: unit.map { unitJoules[$0] } ?? (measured.isEmpty ? nil : measured.reduce(0, +)),
                energyImpact: Self.total(members.map(\.energyImpact)))
        }
    }

    /// A sum is unknown as soon as one part is.
    private static func total(_ values: [Double?]) -> Double? {
        var sum = 0.0
        for value in values {
            guard let value else { return nil }
            sum += value
        }
        return sum
    }

    /// The `joule top --json` line: the binding keys (`timestamp`, `source`, `systemW`,
    /// `processes`), then where the figure comes from and how it splits.
    public func json(order: ProcessEnergy.Order, byUnit: Bool) -> JSONObject {
        let rows = ProcessEnergy.sorted(byUnit ? units : processes, by: order)
        return [
            "timestamp": .from(timestamp, places: 3), "source": .string(source.kind.rawValue),
            "systemW": .from(systemWatts, places: 3), "processes": .array(rows.map { .object($0.json) }),
            "origin": .string(source.origin), "passedOver": .array(source.passedOver.map(JSONValue.string)),
            "intervalS": .from(intervalSeconds, places: 3), "nodeCPUPercent": .from(nodeCPUPercent, places: 2),
            "activeW": .from(activeWatts, places: 3), "idleW": .from(idleWatts, places: 3),
            "unattributedW": .from(unattributedWatts, places: 3),
        ]
    }
}
