/// A 128-bit proximity UUID (iBeacon, and the first 16 bytes of an AltBeacon id), stored
/// inline so decoding an advert allocates nothing.
public struct BeaconUUID: Sendable, Hashable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads 16 big-endian bytes; the caller has checked the count.
    init(bigEndian bytes: UnsafeRawBufferPointer) {
        var h: UInt64 = 0
        var l: UInt64 = 0
        for i in 0..<8 { h = h << 8 | UInt64(bytes[i]) }
        for i in 8..<16 { l = l << 8 | UInt64(bytes[i]) }
        high = h
        low = l
    }

    /// Parses the 8-4-4-4-12 form in either case; nil for anything else.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var h: UInt64 = 0
        var l: UInt64 = 0
        var digits = 0
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let v = Hex.value(of: c) else { return nil }
            if digits < 16 { h = h << 4 | UInt64(v) } else { l = l << 4 | UInt64(v) }
            digits += 1
        }
        high = h
        low = l
    }

    /// Writes the uppercase 8-4-4-4-12 text (36 bytes) at `out`.
    func write(to out: UnsafeMutablePointer<UInt8>) {
        Self.hex(high, bytes: 0..<4, to: out)
        out[8] = UInt8(ascii: "-")
        Self.hex(high, bytes: 4..<6, to: out + 9)
        out[13] = UInt8(ascii: "-")
        Self.hex(high, bytes: 6..<8, to: out + 14)
        out[18] = UInt8(ascii: "-")
        Self.hex(low, bytes: 0..<2, to: out + 19)
        out[23] = UInt8(ascii: "-")
        Self.hex(low, bytes: 2..<8, to: out + 24)
    }

    /// Bytes `range` of `word` (0 = most significant) as uppercase hex at `out`.
    @inline(__always)
    static func hex(_ word: UInt64, bytes range: Range<Int>, to out: UnsafeMutablePointer<UInt8>) {
        var q = out
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = UInt8(truncatingIfNeeded: word &>> UInt64(truncatingIfNeeded: 56 &- 8 &* i))
            q[0] = LineCursor.hexDigit(byte &>> 4, upper: true)
            q[1] = LineCursor.hexDigit(byte & 0xF, upper: true)
            q += 2
            i &+= 1
        }
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            write(to: buffer.baseAddress!)
            return 36
        }
    }
}
