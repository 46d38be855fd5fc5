/// AltBeacon: manufacturer data with any company id, beacon code 0xBEAC, a 20-byte beacon id,
/// the reference RSSI at 1 m (int8) and one manufacturer-reserved byte.
public struct AltBeacon: Sendable, Hashable {
    /// The advertiser's company identifier (little-endian on air).
    public var manufacturer: UInt16
    public var id: BeaconIdentifier
    public var txPower: Int8
    public var reserved: UInt8

    public init(manufacturer: UInt16, id: BeaconIdentifier, txPower: Int8, reserved: UInt8 = 0) {
        self.manufacturer = manufacturer
        self.id = id
        self.txPower = txPower
        self.reserved = reserved
    }

    /// The first 16 id bytes read as a proximity UUID, as AltBeacon's id1 is commonly used.
    public var uuid: BeaconUUID {
        var h: UInt64 = 0
        var l: UInt64 = 0
        for i in 0..<8 { h = h << 8 | UInt64(id.byte(at: i)) }
        for i in 8..<16 { l = l << 8 | UInt64(id.byte(at: i)) }
        return BeaconUUID(high: h, low: l)
    }

    /// id bytes 16–17, big-endian (AltBeacon's id2).
    public var major: UInt16 { UInt16(id.byte(at: 16)) << 8 | UInt16(id.byte(at: 17)) }
    /// id bytes 18–19, big-endian (AltBeacon's id3).
    public var minor: UInt16 { UInt16(id.byte(at: 18)) << 8 | UInt16(id.byte(at: 19)) }

    /// Decodes the data of a Manufacturer Specific AD structure (after its type byte).
    public init(manufacturerData data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        manufacturer = try cursor.u16le("company id")
        guard try cursor.u16be("beacon code") == 0xBEAC else { throw .mismatch("not an AltBeacon") }
        id = BeaconIdentifier(try cursor.take(20, "AltBeacon id"))
        txPower = try cursor.i8("AltBeacon reference RSSI")
        reserved = try cursor.u8("AltBeacon reserved byte")
    }

    public init(manufacturerData bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try AltBeacon(manufacturerData: raw) }
    }
}
