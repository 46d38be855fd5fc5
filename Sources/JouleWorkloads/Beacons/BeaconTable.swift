import JouleHardware

/// The live table of `joule beacons scan`: every beacon heard recently, of any kind, from the
/// `BeaconTracker` keyed by kind and identity. Eddystone calibrates at 0 m; 41 dB of path loss
/// gives 1 m.
public struct BeaconTable: Sendable {
    public struct Row: Sendable, Equatable {
        public var kind: String
        public var identity: String
        public var address: String
        public var rssi: Double?
        public var accuracyM: Double?
        public var proximity: Proximity
    }

    private struct Seen: Sendable {
        var kind: String
        var identity: String
        var address: String
    }

    private var tracker: BeaconTracker<String, Seen>

    public init(model: DistanceModel = DistanceModel(), window: Duration = .seconds(20)) {
        tracker = BeaconTracker(model: model, window: window)
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
        let seen = Seen(kind: advert.frame.kind, identity: identity, address: advert.address.description)
        tracker.observe(seen.kind + " " + identity, info: seen, txPower: txPower, rssi: advert.rssi.map(Int.init), at: time)
    }

    /// Beacons heard within the window ending at `time`, nearest first.
    public mutating func rows(at time: Int64) -> [Row] {
        let rows = tracker.estimates(at: time).map { estimate in
            Row(
                kind: estimate.info.kind, identity: estimate.info.identity, address: estimate.info.address,
                rssi: estimate.rssi, accuracyM: estimate.accuracyM, proximity: estimate.proximity)
        }
        return rows.sorted { ($0.accuracyM ?? .infinity, $0.identity) < ($1.accuracyM ?? .infinity, $1.identity) }
    }
}
