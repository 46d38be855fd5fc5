/// A 48-bit Bluetooth device address. HCI sends it least significant byte first; it prints
/// most significant first, as `AA:BB:CC:DD:EE:FF`.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address as an integer, most significant byte = first printed byte.
    public var value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// Reads the 6 little-endian bytes HCI uses.
    public init(littleEndian bytes: UnsafeRawBufferPointer) {
        var v: UInt64 = 0
        for i in (0..<Swift.min(6, bytes.count)).reversed() { v = v << 8 | UInt64(bytes[i]) }
        value = v
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            v = v << 8 | UInt64(byte)
        }
        value = v
    }

    /// The 6 bytes in HCI order (least significant first).
    public var littleEndianBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.value < rhs.value }

    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(17)
        for i in (0..<6).reversed() {
            let byte = UInt8(truncatingIfNeeded: value >> (8 * i))
            out.append(Hex.upper[Int(byte >> 4)])
            out.append(Hex.upper[Int(byte & 0xF)])
            if i > 0 { out.append(UInt8(ascii: ":")) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Hex digit tables shared by the identifier types and the JSON writer.
enum Hex {
    static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)
    static let lower: [UInt8] = Array("0123456789abcdef".utf8)

    /// The 8 hex digits of `word`, most significant first, packed so that a little-endian
    /// store writes them in reading order. Every digit at once (SWAR): the decoder prints two
    /// identifiers per advert, and a digit at a time was a tenth of its instructions.
    @inline(__always)
    static func spell(_ word: UInt32, upper: Bool) -> UInt64 {
        // Byte k of the word (from the most significant) to bytes 2k and 2k+1, one nibble each.
        var x = UInt64(word.byteSwapped)
        x = (x | x &<< 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x &<< 8) & 0x00FF_00FF_00FF_00FF
        x = (x &>> 4) & 0x000F_000F_000F_000F | (x & 0x000F_000F_000F_000F) &<< 8
        // 1 in each byte whose nibble is 10-15 (nibble + 6 carries into bit 4; no byte overflows).
        let letters = ((x &+ 0x0606_0606_0606_0606) &>> 4) & 0x0101_0101_0101_0101
        return x &+ 0x3030_3030_3030_3030 &+ letters &* (upper ? 7 : 39)
    }

    /// Stores `spell(word)` at `out` (unaligned), all 8 digits or the first `digits`.
    @inline(__always)
    static func write(_ word: UInt32, upper: Bool, to out: UnsafeMutablePointer<UInt8>, digits: Int = 8) {
        let text = spell(word, upper: upper)
        if digits == 8 {
            UnsafeMutableRawPointer(out).storeBytes(of: text.littleEndian, as: UInt64.self)
        } else {
            for i in 0..<digits { out[i] = UInt8(truncatingIfNeeded: text &>> UInt64(8 &* i)) }
        }
    }

    static func value(of ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): ascii - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
