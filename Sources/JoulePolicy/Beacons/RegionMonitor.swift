/// Region entry and exit. A region is entered at its first matching advert and left once the
/// radio has listened for `exitTimeout` without hearing any matching advert. Only listening
/// time counts, so a duty-cycled or paused radio never causes a false exit.
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
        for (i, region) in regions.enumerated() where region.matches(uuid: key.uuid, major: key.major, minor: key.minor) {
            states[i].silence = 0
            if !states[i].inside {
                states[i].inside = true
                events.append(RegionEvent(timestampMicros: time, kind: .enter, region: region))
            }
        }
        return events
    }

    /// The earliest time an exit falls due if the radio keeps `listening` from now.
    public func nextExit(listening: Bool) -> Int64? {
        guard listening, let now else { return nil }
        var earliest: Int64?
        for state in states where state.inside {
            let due = now + max(0, exitTimeoutMicros - state.silence)
            if due < earliest ?? .max { earliest = due }
        }
        return earliest
    }

    /// Moves time to `time`; `listening` says whether the radio listened since the previous call.
    /// The caller steps through every deadline (`nextExit`), so exits carry their exact times.
    /// Without `inclusive`, an exit falling due exactly at `time` waits: an advert at that
    /// same instant still counts.
    public mutating func advance(to time: Int64, listening: Bool, inclusive: Bool = true) -> [RegionEvent] {
        defer { now = max(now ?? time, time) }
        guard let previous = now, time > previous, listening else { return [] }
        var events: [RegionEvent] = []
        for i in states.indices where states[i].inside {
            states[i].silence += time - previous
            if states[i].silence > exitTimeoutMicros || (inclusive && states[i].silence == exitTimeoutMicros) {
                states[i].inside = false
                let exitTime = time - (states[i].silence - exitTimeoutMicros)
                events.append(RegionEvent(timestampMicros: exitTime, kind: .exit, region: regions[i]))
            }
        }
        return events
    }
}
