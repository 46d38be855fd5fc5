import JouleWire
import JouleHardware

/// What a running region monitor shows `/metrics`: whether each region is inside, and its
/// beacons' recent RSSI. The runner records into it as it goes (one lock per advert of a
/// beacon in a region); a scrape reads it from another task.
public final class BeaconRegionGauges: Sendable {
    private struct Region {
        var inside = false
        var rssi = RunningAverageRSSIFilter()
    }

    private let regions: [BeaconRegion]
    private let state: Locked<[Region]>

    public init(regions: [BeaconRegion]) {
        self.regions = regions
        state = Locked(Array(repeating: Region(), count: regions.count))
    }

    /// An entry or an exit. An exit forgets the region's RSSI: outside, there is none.
    public func record(_ event: RegionEvent) {
        guard let index = regions.firstIndex(of: event.region) else { return }
        state.withLock { states in
            states[index].inside = event.kind == .enter
            if event.kind == .exit { states[index].rssi = RunningAverageRSSIFilter() }
        }
    }

    /// An advert of `key` heard at `rssi` dBm at `time` (Unix µs).
    public func heard(_ key: BeaconKey, rssi: Int, at time: Int64) {
        state.withLock { states in
            for index in regions.indices where regions[index].matches(key) {
                states[index].rssi.add(rssi, at: time)
                // Bounded by the filter's window, whether anyone reads or not.
                states[index].rssi.prune(now: time)
            }
        }
    }

    /// Each region at `now` (Unix µs), in the monitor's order.
    public func readings(now: Int64) -> [MetricsSample.BeaconRegionReading] {
        state.withLock { states in
            regions.indices.map { index in
                MetricsSample.BeaconRegionReading(
                    name: regions[index].name, inside: states[index].inside,
                    rssiDBm: states[index].inside ? states[index].rssi.value(now: now) : nil)
            }
        }
    }
}
