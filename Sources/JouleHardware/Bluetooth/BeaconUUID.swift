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
        let h1 = UInt32(truncatingIfNeeded: high &>> 32), h2 = UInt32(truncatingIfNeeded: high)
        let l1 = UInt32(truncatingIfNeeded: low &>> 32), l2 = UInt32(truncatingIfNeeded: low)
        Hex.write(h1, upper: true, to: out)
        out[8] = UInt8(ascii: "-")
        Self.split(h2, to: out + 9)
        out[18] = UInt8(ascii: "-")
        Self.split(l1, to: out + 19)
        Hex.write(l2, upper: true, to: out + 28)
    }

    /// Eight digits as two groups of four around a dash (`out[4]`).
    @inline(__always)
    private static func split(_ word: UInt32, to out: UnsafeMutablePointer<UInt8>) {
        let text = Hex.spell(word, upper: true)
        let raw = UnsafeMutableRawPointer(out)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: text).littleEndian, as: UInt32.self)
        out[4] = UInt8(ascii: "-")
        raw.storeBytes(of: UInt32(truncatingIfNeeded: text &>> 32).littleEndian, toByteOffset: 5, as: UInt32.self)
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            write(to: buffer.baseAddress!)
            return 36
        }
    }
}
