/// Ranging: per-beacon RSSI filters, distance and proximity for the beacons in the regions,
/// sorted nearest first. Also judges whether accuracy is still improving (to give up on high
/// duty) and whether every distance is steady (for `range --once`).
public struct BeaconRanger: Sendable {
    public var regions: [BeaconRegion]
    public var model: DistanceModel
    public var windowSeconds: Double
    public var trim: Double
    /// Intervals without a better best accuracy before ranging gives up on high duty.
    public var giveUpIntervals: Int
    /// Relative decrease of the best accuracy that counts as better.
    public var improvement: Double
    /// Consecutive reports a distance must stay within `steadyTolerance` to be steady.
    public var steadyIntervals: Int
    public var steadyTolerance: Double

    private struct Track: Sendable {
        var filter: RunningAverageRSSIFilter
        var txPower: Int
        var lastSeen: Int64
        var recent: [Double?] = []
    }
    private var tracks: [BeaconKey: Track] = [:]
    private var bestAccuracy = Double.infinity
    private var staleIntervals = 0
    private var lastKeys: Set<BeaconKey> = []
    /// True once accuracy stopped improving; false again at the first change.
    public private(set) var gaveUp = false

    public init(
        regions: [BeaconRegion], model: DistanceModel = DistanceModel(), windowSeconds: Double = 20,
        trim: Double = 0.1, giveUpIntervals: Int = 5, improvement: Double = 0.1, steadyIntervals: Int = 3,
        steadyTolerance: Double = 0.1
    ) {
        self.regions = regions
        self.model = model
        self.windowSeconds = windowSeconds
        self.trim = trim
        self.giveUpIntervals = giveUpIntervals
        self.improvement = improvement
        self.steadyIntervals = steadyIntervals
        self.steadyTolerance = steadyTolerance
    }

    public func inRegion(_ key: BeaconKey) -> Bool {
        regions.contains { $0.matches(uuid: key.uuid, major: key.major, minor: key.minor) }
    }

    /// Records an advert of a beacon in one of the regions; RSSI nil still counts as seen.
    public mutating func observe(_ key: BeaconKey, txPower: Int, rssi: Int?, at time: Int64) {
        guard inRegion(key) else { return }
        var track = tracks[key] ?? Track(filter: RunningAverageRSSIFilter(windowSeconds: windowSeconds, trim: trim), txPower: txPower, lastSeen: time)
        if let rssi { track.filter.add(rssi, at: time) }
        track.txPower = txPower
        track.lastSeen = time
        tracks[key] = track
    }

    /// The ranging result at `time`: every beacon seen within the window, one entry per
    /// matching region, nearest first (unknown distances last).
    public mutating func report(at time: Int64) -> [RangedBeacon] {
        let window = BeaconTime.micros(seconds: windowSeconds)
        tracks = tracks.filter { time - $0.value.lastSeen < window }
        var rows: [RangedBeacon] = []
        for key in tracks.keys.sorted() {
            guard var track = tracks[key] else { continue }
            let rssi = track.filter.value(now: time)
            let accuracy = model.distance(rssi: rssi, txPower: track.txPower)
            track.recent.append(accuracy)
            if track.recent.count > steadyIntervals { track.recent.removeFirst(track.recent.count - steadyIntervals) }
            tracks[key] = track
            for region in regions where region.matches(uuid: key.uuid, major: key.major, minor: key.minor) {
                rows.append(
                    RangedBeacon(
                        timestampMicros: time, region: region.name, key: key, rssi: rssi, accuracyM: accuracy,
                        proximity: Proximity(accuracyM: accuracy)))
            }
        }
        rows.sort { a, b in
            switch (a.accuracyM, b.accuracyM) {
            case let (x?, y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default:
                if a.key != b.key { return a.key < b.key }
                return regionOrder(a.region) < regionOrder(b.region)
            }
        }
        judgeImprovement(rows)
        return rows
    }

    /// Position of a region in the configuration, so ties list regions in the order given.
    private func regionOrder(_ name: String) -> Int { regions.firstIndex { $0.name == name } ?? regions.count }

    private mutating func judgeImprovement(_ rows: [RangedBeacon]) {
        let keys = Set(rows.map(\.key))
        let best = rows.compactMap(\.accuracyM).min() ?? .infinity
        if keys != lastKeys {
            // A beacon came or went: that is a change worth high duty again.
            lastKeys = keys
            bestAccuracy = best
            staleIntervals = 0
            gaveUp = false
        } else if best < bestAccuracy * (1 - improvement) {
            bestAccuracy = best
            staleIntervals = 0
            gaveUp = false
        } else {
            staleIntervals += 1
            if staleIntervals >= giveUpIntervals { gaveUp = true }
        }
    }

    /// True when at least one beacon is ranged and each has `steadyIntervals` known distances
    /// within `steadyTolerance` (relative) of each other.
    public var allSteady: Bool {
        guard !tracks.isEmpty else { return false }
        return tracks.values.allSatisfy { track in
            guard track.recent.count >= steadyIntervals else { return false }
            let values = track.recent.compactMap { $0 }
            guard values.count == track.recent.count, let lo = values.min(), let hi = values.max() else { return false }
            return hi - lo <= steadyTolerance * max(hi, 0.1)
        }
    }
}
