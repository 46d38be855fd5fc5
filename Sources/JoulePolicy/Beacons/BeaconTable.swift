import JouleHardware

/// The live table of `joule beacons scan`: every beacon heard recently, with filtered RSSI,
/// distance and proximity. Eddystone calibrates at 0 m; 41 dB of path loss gives 1 m.
public struct BeaconTable: Sendable {
    public struct Row: Sendable, Equatable {
        public var kind: String
        public var identity: String
        public var address: String
        public var rssi: Double?
        public var accuracyM: Double?
        public var proximity: Proximity
    }

    private struct Entry: Sendable {
        var kind: String
        var address: String
        var filter: RunningAverageRSSIFilter
        var txPower: Int?
        var lastSeen: Int64
    }

    public var model: DistanceModel
    public var windowSeconds: Double
    private var entries: [String: Entry] = [:]

    public init(model: DistanceModel = DistanceModel(), windowSeconds: Double = 20) {
        self.model = model
        self.windowSeconds = windowSeconds
    }

    /// Stable text identity of a frame: UUID/major/minor, ids, URL; TLM by address.
    static func identity(_ advert: BeaconAdvert) -> (String, Int?) {
        switch advert.frame {
        case .iBeacon(let b): ("\(b.uuid) \(b.major) \(b.minor)", Int(b.txPower))
        case .altBeacon(let b): (b.id.description, Int(b.txPower))
        case .eddystoneUID(let b): ("\(b.namespace) \(b.instance)", Int(b.txPower) - 41)
        case .eddystoneURL(let b): (b.url, Int(b.txPower) - 41)
        case .eddystoneTLM: ("telemetry of \(advert.address)", nil)
        }
    }

    public mutating func observe(_ advert: BeaconAdvert, at time: Int64) {
        let (identity, txPower) = Self.identity(advert)
        let key = advert.frame.kind + " " + identity
        var entry = entries[key] ?? Entry(
            kind: advert.frame.kind, address: advert.address.description,
            filter: RunningAverageRSSIFilter(windowSeconds: windowSeconds), txPower: txPower, lastSeen: time)
        if let rssi = advert.rssi { entry.filter.add(Int(rssi), at: time) }
        entry.lastSeen = time
        entry.txPower = txPower
        entry.address = advert.address.description
        entries[key] = entry
    }

    /// Beacons heard within the window ending at `time`, nearest first.
    public mutating func rows(at time: Int64) -> [Row] {
        let window = BeaconTime.micros(seconds: windowSeconds)
        entries = entries.filter { time - $0.value.lastSeen < window }
        var rows: [Row] = []
        for key in entries.keys.sorted() {
            guard var entry = entries[key] else { continue }
            let rssi = entry.filter.value(now: time)
            entries[key] = entry
            let accuracy = model.distance(rssi: rssi, txPower: entry.txPower)
            let identity = String(key.dropFirst(entry.kind.count + 1))
            rows.append(Row(kind: entry.kind, identity: identity, address: entry.address, rssi: rssi, accuracyM: accuracy, proximity: Proximity(accuracyM: accuracy)))
        }
        return rows.sorted { ($0.accuracyM ?? .infinity, $0.identity) < ($1.accuracyM ?? .infinity, $1.identity) }
    }
}
