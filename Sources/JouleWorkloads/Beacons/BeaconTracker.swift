/// What the beacon engines know of each beacon heard: a running-average RSSI filter, the
/// calibrated power, when it was last heard, and from those the distance and proximity.
/// Ranging (by UUID/major/minor in regions) and the scan table (every beacon kind) are two
/// views of it, keyed differently.
public struct BeaconTracker<Key: Hashable & Comparable & Sendable, Info: Sendable>: Sendable {
    public struct Estimate: Sendable {
        public var key: Key
        /// The latest advert's details (address, kind…), as the view keeps them.
        public var info: Info
        /// Filtered RSSI in dBm, nil with no sample in the window.
        public var rssi: Double?
        /// Metres, nil when unknown (no RSSI, no calibration).
        public var accuracyM: Double?
        public var proximity: Proximity
    }

    private struct Track: Sendable {
        var filter: RunningAverageRSSIFilter
        var txPower: Int?
        var lastSeen: Int64
        var info: Info
    }

    public var model: DistanceModel
    public var window: Duration
    public var trim: Double
    private var tracks: [Key: Track] = [:]

    public init(model: DistanceModel = DistanceModel(), window: Duration = .seconds(20), trim: Double = 0.1) {
        self.model = model
        self.window = window
        self.trim = trim
    }

    /// Beacons heard and not yet forgotten.
    public var keys: some Collection<Key> { tracks.keys }
    public var isEmpty: Bool { tracks.isEmpty }

    /// An advert of `key`; RSSI nil still counts as heard. The power and info are the latest.
    public mutating func observe(_ key: Key, info: Info, txPower: Int?, rssi: Int?, at time: Int64) {
        var track = tracks[key] ?? Track(
            filter: RunningAverageRSSIFilter(window: window, trim: trim), txPower: txPower, lastSeen: time,
            info: info)
        if let rssi { track.filter.add(rssi, at: time) }
        track.txPower = txPower
        track.lastSeen = time
        track.info = info
        tracks[key] = track
    }

    /// Every beacon heard within the window ending at `time`, in key order; the others are
    /// forgotten.
    public mutating func estimates(at time: Int64) -> [Estimate] {
        let window = BeaconTime.micros(window)
        tracks = tracks.filter { time - $0.value.lastSeen < window }
        var out: [Estimate] = []
        for key in tracks.keys.sorted() {
            guard var track = tracks[key] else { continue }
            let rssi = track.filter.value(now: time)
            tracks[key] = track
            let accuracy = model.distance(rssi: rssi, txPower: track.txPower)
            out.append(Estimate(key: key, info: track.info, rssi: rssi, accuracyM: accuracy, proximity: Proximity(accuracyM: accuracy)))
        }
        return out
    }
}
