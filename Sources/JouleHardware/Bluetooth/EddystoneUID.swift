/// Eddystone-UID (frame type 0x00): calibrated Tx power at 0 m, a 10-byte namespace and a
/// 6-byte instance. The two trailing reserved bytes are optional in the wild.
public struct EddystoneUID: Sendable, Hashable {
    public var txPower: Int8
    public var namespace: BeaconIdentifier
    public var instance: BeaconIdentifier

    public init(txPower: Int8, namespace: BeaconIdentifier, instance: BeaconIdentifier) {
        self.txPower = txPower
        self.namespace = namespace
        self.instance = instance
    }

    /// Decodes the frame that follows the 0xFEAA service UUID in a Service Data AD.
    public init(frame data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        guard try cursor.u8("Eddystone frame type") == 0x00 else { throw .mismatch("not an Eddystone-UID frame") }
        txPower = try cursor.i8("Eddystone-UID Tx power")
        namespace = BeaconIdentifier(try cursor.take(10, "Eddystone-UID namespace"))
        instance = BeaconIdentifier(try cursor.take(6, "Eddystone-UID instance"))
    }

    public init(frame bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try EddystoneUID(frame: raw) }
    }
}
