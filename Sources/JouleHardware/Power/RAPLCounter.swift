/// One zone's `energy_uj` turned into energy used, across wraps. Pure: values and times (in
/// seconds, as the engines' clocks give them) are passed in, so tests need no sysfs or clock.
///
/// The kernel counter is a 32-bit hardware register scaled to µJ; it wraps to 0 after
/// `max_energy_range_uj` (262 kJ on Intel clients, 65.5 kJ on AMD: about an hour at 20 W on
/// AMD). A drop is a wrap only when the range is known and both values lie within it; anything
/// else (unknown range, a value beyond the range, a changed range after a driver reload) is
/// reported as a reset and the interval is not counted, since guessing would invent energy.
/// One wrap per interval is assumed: read more often than the range lasts at full power.
public struct RAPLCounter: Sendable, Hashable {
    /// What one `record` did with the new value.
    public enum Step: Sendable, Hashable {
        /// The first known value: a baseline, nothing to add yet.
        case started
        /// The counter rose by this much.
        case advanced(microjoules: UInt64)
        /// The counter wrapped: `range − old + new` was added.
        case wrapped(microjoules: UInt64)
        /// The counter moved in a way no wrap explains; the interval was dropped and the new value
        /// is the next baseline.
        case reset(reason: String)
        /// No value this time; the last known value stays the baseline.
        case unknown(RAPLUnknownReason?)
    }

    /// Energy accumulated over every counted interval, in µJ.
    public private(set) var totalMicrojoules: UInt64 = 0
    /// The last known counter value and range, and when they were read.
    public private(set) var lastValue: UInt64?
    public private(set) var lastRange: UInt64?
    public private(set) var lastTime: Double?
    /// The last counted interval: its energy and its length. nil after a reset or before two reads.
    public private(set) var lastIntervalMicrojoules: UInt64?
    public private(set) var lastIntervalSeconds: Double?

    public init() {}

    public var totalJoules: Double { Double(totalMicrojoules) / 1_000_000 }

    /// Average power over the last counted interval; nil without one, or when the clock did not
    /// advance (the energy is still counted: the counter, not the clock, measures it).
    public var averageWatts: Double? {
        guard let energy = lastIntervalMicrojoules, let seconds = lastIntervalSeconds, seconds > 0 else { return nil }
        return Double(energy) / 1_000_000 / seconds
    }

    /// Records a zone as read at `time` seconds.
    @discardableResult
    public mutating func record(_ zone: RAPLZone, at time: Double) -> Step {
        guard let energy = zone.energyMicrojoules else {
            lastIntervalMicrojoules = nil
            lastIntervalSeconds = nil
            return .unknown(zone.energyUnknown)
        }
        return record(energy: energy, maxRange: zone.maxRangeMicrojoules, at: time)
    }

    @discardableResult
    public mutating func record(energy: UInt64, maxRange: UInt64?, at time: Double) -> Step {
        defer {
            lastValue = energy
            lastRange = maxRange
            lastTime = time
        }
        guard let old = lastValue, let oldTime = lastTime else {
            return .started
        }
        let delta: UInt64
        let wrapped: Bool
        if let range = maxRange, energy > range {
            return reset("energy_uj \(energy) is above max_energy_range_uj \(range)")
        } else if let before = lastRange, let now = maxRange, before != now {
            return reset("max_energy_range_uj changed from \(before) to \(now)")
        } else if energy >= old {
            delta = energy - old
            wrapped = false
        } else if let range = maxRange, old <= range {
            delta = range - old + energy
            wrapped = true
        } else {
            return reset("energy_uj fell from \(old) to \(energy) and max_energy_range_uj is unknown")
        }
        let (sum, overflow) = totalMicrojoules.addingReportingOverflow(delta)
        guard !overflow else { return reset("the total would overflow 64 bits") }
        totalMicrojoules = sum
        lastIntervalMicrojoules = delta
        lastIntervalSeconds = time - oldTime
        return wrapped ? .wrapped(microjoules: delta) : .advanced(microjoules: delta)
    }

    private mutating func reset(_ reason: String) -> Step {
        lastIntervalMicrojoules = nil
        lastIntervalSeconds = nil
        return .reset(reason: reason)
    }
}
