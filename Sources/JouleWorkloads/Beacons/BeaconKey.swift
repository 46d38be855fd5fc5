import JouleWire
import JouleHardware

/// The identity of a rangeable beacon. iBeacons and AltBeacons (id1 = UUID, id2 = major,
/// id3 = minor) have a proximity UUID, major and minor; Eddystone-UID beacons a namespace and
/// an instance, as the AltBeacon library's identifiers are for that layout.
public enum BeaconKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    case proximity(uuid: BeaconUUID, major: UInt16, minor: UInt16)
    case eddystone(namespace: BeaconIdentifier, instance: BeaconIdentifier)

    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
        self = .proximity(uuid: uuid, major: major, minor: minor)
    }

    /// Eddystone-UID frames carry their power at 0 m; ranging wants it at 1 m, 41 dB less
    /// (the Eddystone specification's free-space loss, which the AltBeacon library applies too).
    public static let eddystoneOneMetreLoss = 41

    /// The key and measured power at 1 m for a frame that has them.
    public static func of(_ frame: BeaconFrame) -> (key: BeaconKey, txPower: Int)? {
        switch frame {
        case .iBeacon(let b): (.proximity(uuid: b.uuid, major: b.major, minor: b.minor), Int(b.txPower))
        case .altBeacon(let b): (.proximity(uuid: b.uuid, major: b.major, minor: b.minor), Int(b.txPower))
        case .eddystoneUID(let b):
            (.eddystone(namespace: b.namespace, instance: b.instance), Int(b.txPower) - eddystoneOneMetreLoss)
        default: nil
        }
    }

    /// The JSON lines' identifier keys: `uuid`, `major`, `minor`, or `namespace`, `instance`.
    public var jsonFields: [(String, JSONValue)] {
        switch self {
        case .proximity(let uuid, let major, let minor):
            [("uuid", .string(uuid.description)), ("major", .int(Int(major))), ("minor", .int(Int(minor)))]
        case .eddystone(let namespace, let instance):
            [("namespace", .string(namespace.description)), ("instance", .string(instance.description))]
        }
    }

    /// `UUID major/minor`, or `namespace instance`, for tables.
    public var description: String {
        switch self {
        case .proximity(let uuid, let major, let minor): "\(uuid) \(major)/\(minor)"
        case .eddystone(let namespace, let instance): "\(namespace) \(instance)"
        }
    }

    /// Proximity beacons first; within a kind, by identifier bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.proximity(let a, let aMajor, let aMinor), .proximity(let b, let bMajor, let bMinor)):
            (a.high, a.low, aMajor, aMinor) < (b.high, b.low, bMajor, bMinor)
        case (.eddystone(let a, let aInstance), .eddystone(let b, let bInstance)):
            (a.bytes + aInstance.bytes).lexicographicallyPrecedes(b.bytes + bInstance.bytes)
        case (.proximity, .eddystone): true
        case (.eddystone, .proximity): false
        }
    }
}
