/// Wrap-corrected energy for every RAPL zone across successive readings, and the host's
/// power from the zones that `RAPLHostDomains` picks. Pure: readings and times are passed in.
public struct RAPLMeter: Sendable, Hashable {
    /// One counter per zone id; a zone that disappears keeps its total.
    public private(set) var counters: [String: RAPLCounter] = [:]
    /// The host's zones as of the last reading; nil when RAPL cannot measure the host.
    public private(set) var host: RAPLHostDomains?

    public init() {}

    /// Records a reading taken at `time` seconds; returns what each zone's counter did.
    @discardableResult
    public mutating func record(_ reading: RAPLReading, at time: Double) -> [String: RAPLCounter.Step] {
        var steps: [String: RAPLCounter.Step] = [:]
        for zone in reading.zones {
            steps[zone.id] = counters[zone.id, default: RAPLCounter()].record(zone, at: time)
        }
        for id in counters.keys where reading.zone(id) == nil {
            // Gone (driver unloaded): no figure for this interval, the total stays.
            let missing = RAPLZone(id: id, path: RAPLReader.classDirectory + "/" + id, parentID: nil, name: nil)
            steps[id] = counters[id]?.record(missing, at: time)
        }
        host = RAPLHostDomains.select(from: reading)
        return steps
    }

    /// Joules counted for one zone since the first reading.
    public func joules(zone id: String) -> Double? { counters[id]?.totalJoules }

    /// One zone's average power over the last interval.
    public func watts(zone id: String) -> Double? { counters[id]?.averageWatts }

    /// The host's average power over the last interval: the host zones' sum, nil when any of
    /// them has no figure for it.
    public var hostWatts: Double? {
        guard let host else { return nil }
        var total = 0.0
        for id in host.zoneIDs {
            guard let watts = counters[id]?.averageWatts else { return nil }
            total += watts
        }
        return total
    }

    /// The host's energy since the first reading, summed over the current host zones.
    public var hostJoules: Double? {
        guard let host else { return nil }
        var total = 0.0
        for id in host.zoneIDs {
            guard let counter = counters[id] else { return nil }
            total += counter.totalJoules
        }
        return total
    }
}
