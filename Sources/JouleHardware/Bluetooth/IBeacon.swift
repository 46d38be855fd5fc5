/// Apple's iBeacon: manufacturer data for company 0x004C with type 0x02, length 0x15,
/// a proximity UUID, major and minor (big-endian) and the measured power at 1 m (int8, dBm).
public struct IBeacon: Sendable, Hashable {
    public var uuid: BeaconUUID
    public var major: UInt16
    public var minor: UInt16
    public var txPower: Int8

    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16, txPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.txPower = txPower
    }

    /// Decodes the data of a Manufacturer Specific AD structure (after its type byte).
    public init(manufacturerData data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        guard try cursor.u16le("company id") == 0x004C else { throw .mismatch("not Apple manufacturer data") }
        guard try cursor.u8("iBeacon type") == 0x02 else { throw .mismatch("not an iBeacon") }
        let length = try cursor.u8("iBeacon length")
        guard length == 0x15 else { throw .invalid(field: "iBeacon length", offset: 3, value: Int(length)) }
        uuid = BeaconUUID(bigEndian: try cursor.take(16, "iBeacon UUID"))
        major = try cursor.u16be("iBeacon major")
        minor = try cursor.u16be("iBeacon minor")
        txPower = try cursor.i8("iBeacon measured power")
    }

    public init(manufacturerData bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try IBeacon(manufacturerData: raw) }
    }
}
