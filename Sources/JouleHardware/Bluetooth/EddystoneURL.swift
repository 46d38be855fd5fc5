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

    /// The same texts, each a slice of one static string: copied whole into a URL without
    /// touching an array (an element of [[UInt8]] costs a retain and a release per byte code).
    static var table: StaticString { "http://www.https://www.http://https://.com/.org/.edu/.net/.info/.biz/.gov/.com.org.edu.net.info.biz.gov" }

    /// Where scheme `code` (0-3) is in `table`.
    @inline(__always)
    static func scheme(_ code: Int) -> (offset: Int, length: Int) {
        switch code {
        case 0: (0, 11)
        case 1: (11, 12)
        case 2: (23, 7)
        default: (30, 8)
        }
    }

    /// Where expansion `code` (0-13) is in `table`.
    @inline(__always)
    static func expansion(_ code: UInt8) -> (offset: Int, length: Int) {
        switch code {
        case 0: (38, 5)
        case 1: (43, 5)
        case 2: (48, 5)
        case 3: (53, 5)
        case 4: (58, 6)
        case 5: (64, 5)
        case 6: (69, 5)
        case 7: (74, 4)
        case 8: (78, 4)
        case 9: (82, 4)
        case 10: (86, 4)
        case 11: (90, 5)
        case 12: (95, 4)
        default: (99, 4)
        }
    }

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
        var length = Self.scheme(scheme).length
        let body = cursor.offset
        while cursor.remaining > 0 {
            let at = cursor.offset
            let c = try cursor.u8("Eddystone-URL byte")
            if c < 14 {
                length += Self.expansion(c).length
            } else if c > 0x20 && c < 0x7F {
                length += 1
            } else {
                throw .invalid(field: "Eddystone-URL byte", offset: at, value: Int(c))
            }
        }
        url = String(unsafeUninitializedCapacity: length) { out in
            guard var p = out.baseAddress else { return 0 }
            let table = Self.table.utf8Start
            func put(_ slice: (offset: Int, length: Int)) {
                p.update(from: table + slice.offset, count: slice.length)
                p += slice.length
            }
            put(Self.scheme(scheme))
            for c in data[body...] {
                if c < 14 { put(Self.expansion(c)) } else {
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
