import JouleHardware

/// The identity of a rangeable beacon: UUID, major, minor, with the calibrated power its
/// frames carry. iBeacons and AltBeacons (id1 = UUID, id2 = major, id3 = minor) both qualify.
public struct BeaconKey: Sendable, Hashable, Comparable {
    public var uuid: BeaconUUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// The key and measured power at 1 m for a frame that has them.
    public static func of(_ frame: BeaconFrame) -> (key: BeaconKey, txPower: Int)? {
        switch frame {
        case .iBeacon(let b): (BeaconKey(uuid: b.uuid, major: b.major, minor: b.minor), Int(b.txPower))
        case .altBeacon(let b): (BeaconKey(uuid: b.uuid, major: b.major, minor: b.minor), Int(b.txPower))
        default: nil
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.uuid.high, lhs.uuid.low, lhs.major, lhs.minor) < (rhs.uuid.high, rhs.uuid.low, rhs.major, rhs.minor)
    }
}
