/// Eddystone-URL (frame type 0x10): calibrated Tx power at 0 m and a compressed URL, a
/// scheme prefix byte followed by printable ASCII and expansion codes.
public struct EddystoneURL: Sendable, Hashable {
    public var txPower: Int8
    public var url: String

    public init(txPower: Int8, url: String) {
        self.txPower = txPower
        self.url = url
    }

    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    /// Decodes the frame that follows the 0xFEAA service UUID in a Service Data AD. Reserved
    /// scheme or URL bytes make the frame invalid rather than producing a wrong URL.
    public init(frame data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        guard try cursor.u8("Eddystone frame type") == 0x10 else { throw .mismatch("not an Eddystone-URL frame") }
        txPower = try cursor.i8("Eddystone-URL Tx power")
        let scheme = Int(try cursor.u8("Eddystone-URL scheme"))
        guard scheme < Self.schemes.count else { throw .invalid(field: "Eddystone-URL scheme", offset: 2, value: scheme) }
        // Built as bytes: appending scalars to a String one by one is many times slower.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        bytes.append(contentsOf: Self.schemes[scheme].utf8)
        while cursor.remaining > 0 {
            let at = cursor.offset
            let c = try cursor.u8("Eddystone-URL byte")
            if Int(c) < Self.expansions.count {
                bytes.append(contentsOf: Self.expansions[Int(c)].utf8)
            } else if c > 0x20 && c < 0x7F {
                bytes.append(c)
            } else {
                throw .invalid(field: "Eddystone-URL byte", offset: at, value: Int(c))
            }
        }
        url = String(decoding: bytes, as: UTF8.self)
    }

    public init(frame bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try EddystoneURL(frame: raw) }
    }
}
