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

    /// The same texts as bytes, copied whole into a URL (walking a String's UTF-8 view byte by
    /// byte cost more than the rest of the decode).
    static let schemeBytes = schemes.map { Array($0.utf8) }
    static let expansionBytes = expansions.map { Array($0.utf8) }

    /// Decodes the frame that follows the 0xFEAA service UUID in a Service Data AD. Reserved
    /// scheme or URL bytes make the frame invalid rather than producing a wrong URL.
    public init(frame data: UnsafeRawBufferPointer) throws(DecodeError) {
        var cursor = ByteCursor(data)
        guard try cursor.u8("Eddystone frame type") == 0x10 else { throw .mismatch("not an Eddystone-URL frame") }
        txPower = try cursor.i8("Eddystone-URL Tx power")
        let scheme = Int(try cursor.u8("Eddystone-URL scheme"))
        guard scheme < Self.schemes.count else { throw .invalid(field: "Eddystone-URL scheme", offset: 2, value: scheme) }
        // Two passes over at most 17 bytes: the first checks them and sums the expanded length,
        // the second writes the URL straight into the String's storage. No scratch array, and a
        // URL of at most 15 bytes is a small string, with no allocation at all.
        var length = Self.schemeBytes[scheme].count
        let body = cursor.offset
        while cursor.remaining > 0 {
            let at = cursor.offset
            let c = try cursor.u8("Eddystone-URL byte")
            if Int(c) < Self.expansions.count {
                length += Self.expansionBytes[Int(c)].count
            } else if c > 0x20 && c < 0x7F {
                length += 1
            } else {
                throw .invalid(field: "Eddystone-URL byte", offset: at, value: Int(c))
            }
        }
        url = String(unsafeUninitializedCapacity: length) { out in
            guard var p = out.baseAddress else { return 0 }
            func put(_ text: [UInt8]) {
                text.withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: $0.count) }
                p += text.count
            }
            let expansions = Self.expansionBytes
            put(Self.schemeBytes[scheme])
            for c in data[body...] {
                if Int(c) < expansions.count { put(expansions[Int(c)]) } else {
                    p.pointee = c
                    p += 1
                }
            }
            return p - out.baseAddress!
        }
    }

    public init(frame bytes: [UInt8]) throws(DecodeError) {
        self = try decoding(bytes) { (raw) throws(DecodeError) in try EddystoneURL(frame: raw) }
    }
}
