/// Ranging: per-beacon RSSI filters, distance and proximity for the beacons in the regions,
/// sorted nearest first. Also judges whether accuracy is still improving (to give up on high
/// duty) and whether every distance is steady (for `range --once`).
public struct BeaconRanger: Sendable {
    public var regions: [BeaconRegion]
    public var model: DistanceModel {
        get { tracker.model }
        set { tracker.model = newValue }
    }
    public var window: Duration { tracker.window }
    public var trim: Double { tracker.trim }
    /// Intervals without a better best accuracy before ranging gives up on high duty.
    public var giveUpIntervals: Int
    /// Relative decrease of the best accuracy that counts as better.
    public var improvement: Double
    /// Consecutive reports a distance must stay within `steadyTolerance` to be steady.
    public var steadyIntervals: Int
    public var steadyTolerance: Double

    private var tracker: BeaconTracker<BeaconKey, Void>
    /// The last `steadyIntervals` distances of each tracked beacon, for `allSteady`.
    private var recent: [BeaconKey: [Double?]] = [:]
    private var bestAccuracy = Double.infinity
    private var staleIntervals = 0
    private var lastKeys: Set<BeaconKey> = []
    /// True once accuracy stopped improving; false again at the first change.
    public private(set) var gaveUp = false

    public init(
        regions: [BeaconRegion], model: DistanceModel = DistanceModel(), window: Duration = .seconds(20),
        trim: Double = 0.1, giveUpIntervals: Int = 5, improvement: Double = 0.1, steadyIntervals: Int = 3,
        steadyTolerance: Double = 0.1
    ) {
        self.regions = regions
        tracker = BeaconTracker(model: model, window: window, trim: trim)
        self.giveUpIntervals = giveUpIntervals
        self.improvement = improvement
        self.steadyIntervals = steadyIntervals
        self.steadyTolerance = steadyTolerance
    }

    public func inRegion(_ key: BeaconKey) -> Bool {
        regions.contains { $0.matches(key) }
    }

    /// Records an advert of a beacon in one of the regions; RSSI nil still counts as seen.
    public mutating func observe(_ key: BeaconKey, txPower: Int, rssi: Int?, at time: Int64) {
        guard inRegion(key) else { return }
        tracker.observe(key, info: (), txPower: txPower, rssi: rssi, at: time)
    }

    /// The ranging result at `time`: every beacon seen within the window, one entry per
    /// matching region, nearest first (unknown distances last).
    public mutating func report(at time: Int64) -> [RangedBeacon] {
        let estimates = tracker.estimates(at: time)
        var kept: [BeaconKey: [Double?]] = [:]
        var rows: [RangedBeacon] = []
        for estimate in estimates {
            let key = estimate.key
            var history = recent[key] ?? []
            history.append(estimate.accuracyM)
            if history.count > steadyIntervals { history.removeFirst(history.count - steadyIntervals) }
            kept[key] = history
            for region in regions where region.matches(key) {
                rows.append(
                    RangedBeacon(
                        timestampMicros: time, region: region.name, key: key, rssi: estimate.rssi,
                        accuracyM: estimate.accuracyM, proximity: estimate.proximity))
            }
        }
        recent = kept
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
        guard !tracker.isEmpty else { return false }
        return tracker.keys.allSatisfy { key in
            let history = recent[key] ?? []
            guard history.count >= steadyIntervals else { return false }
            let values = history.compactMap { $0 }
            guard values.count == history.count, let lo = values.min(), let hi = values.max() else { return false }
            return hi - lo <= steadyTolerance * max(hi, 0.1)
        }
    }
}
