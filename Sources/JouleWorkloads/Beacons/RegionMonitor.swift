/// Region entry and exit. A region is entered at its first matching advert and left once the
/// radio has listened for `exitTimeout` without hearing any matching advert. Only listening
/// time counts, so a duty-cycled or paused radio never causes a false exit: a controller
/// scanning a 500 ms window every 5 s listens a tenth of the wall time (`listening` fraction).
public struct RegionMonitor: Sendable {
    public let regions: [BeaconRegion]
    public let exitTimeout: Duration
    private let exitTimeoutMicros: Int64

    private struct State: Sendable {
        var inside = false
        /// Listening time since the last matching advert.
        var silence: Int64 = 0
    }
    private var states: [State]
    private var now: Int64?

    public init(regions: [BeaconRegion], exitTimeout: Duration = .seconds(10)) {
        self.regions = regions
        self.exitTimeout = exitTimeout
        exitTimeoutMicros = BeaconTime.micros(exitTimeout)
        states = Array(repeating: State(), count: regions.count)
    }

    public var anyInside: Bool { states.contains(where: \.inside) }

    public func isInside(_ name: String) -> Bool {
        regions.firstIndex { $0.name == name }.map { states[$0].inside } ?? false
    }

    /// A matching advert at `time` (already advanced to): enters regions not yet inside.
    public mutating func observe(_ key: BeaconKey, at time: Int64) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for (i, region) in regions.enumerated() where region.matches(key) {
            states[i].silence = 0
            if !states[i].inside {
                states[i].inside = true
                events.append(RegionEvent(timestampMicros: time, kind: .enter, region: region))
            }
        }
        return events
    }

    /// The earliest time an exit falls due if the radio keeps `listening` from now.
    public func nextExit(listening: Bool) -> Int64? { nextExit(listening: listening ? 1 : 0) }

    /// The earliest time an exit falls due if the radio keeps listening this fraction of the
    /// time (window / interval) from now; nil when it does not listen.
    public func nextExit(listening fraction: Double) -> Int64? {
        guard fraction > 0, let now else { return nil }
        var earliest: Int64?
        for state in states where state.inside {
            let left = max(0, exitTimeoutMicros - state.silence)
            let wall = fraction >= 1 ? left : Int64(clamping: Int64(exactly: (Double(left) / fraction).rounded(.up)) ?? .max)
            let due = now.addingReportingOverflow(wall)
            let at = due.overflow ? Int64.max : due.partialValue
            if at < earliest ?? .max { earliest = at }
        }
        return earliest
    }

    /// Moves time to `time`; `listening` says whether the radio listened since the previous call.
    /// The caller steps through every deadline (`nextExit`), so exits carry their exact times.
    /// Without `inclusive`, an exit falling due exactly at `time` waits: an advert at that
    /// same instant still counts.
    public mutating func advance(to time: Int64, listening: Bool, inclusive: Bool = true) -> [RegionEvent] {
        advance(to: time, listening: listening ? 1 : 0, inclusive: inclusive)
    }

    /// Moves time to `time`, the radio having listened this fraction of the time since the
    /// previous call (0: off; 1: all of it, as on replay or at a 100 % duty).
    public mutating func advance(to time: Int64, listening fraction: Double, inclusive: Bool = true) -> [RegionEvent] {
        defer { now = max(now ?? time, time) }
        guard let previous = now, time > previous, fraction > 0 else { return [] }
        let wall = time - previous
        let heard = fraction >= 1 ? wall : Int64((Double(wall) * fraction).rounded())
        var events: [RegionEvent] = []
        for i in states.indices where states[i].inside {
            states[i].silence += heard
            if states[i].silence > exitTimeoutMicros || (inclusive && states[i].silence == exitTimeoutMicros) {
                states[i].inside = false
                // The listening time past the timeout, back in wall time.
                let over = states[i].silence - exitTimeoutMicros
                let overWall = fraction >= 1 ? over : min(wall, Int64((Double(over) / fraction).rounded(.down)))
                events.append(RegionEvent(timestampMicros: time - overWall, kind: .exit, region: regions[i]))
            }
        }
        return events
    }
}
