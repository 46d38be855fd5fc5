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

    static func value(of ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): ascii - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
