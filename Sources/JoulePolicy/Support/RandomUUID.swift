/// A random (version 4) UUID as text, from the kernel's getrandom(2) through
/// SystemRandomNumberGenerator. Foundation's `UUID()` opens /dev/urandom for each one on
/// Linux, without O_CLOEXEC: a descriptor per transfer, and one a hook spawned meanwhile
/// could inherit.
public enum RandomUUID {
    /// 36 characters, 8-4-4-4-12 hex digits in lowercase (RFC 9562's form).
    public static func lowercase() -> String {
        var generator = SystemRandomNumberGenerator()
        return format(high: generator.next(), low: generator.next())
    }

    /// The text of the UUID whose 16 bytes are `high` then `low` (big-endian), with the
    /// version (4) and variant (10) bits set.
    static func format(high: UInt64, low: UInt64) -> String {
        let high = high & ~0xF000 | 0x4000
        let low = low & ~(0xC000 << 48) | (0x8000 << 48)
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, shift) in stride(from: 124, through: 0, by: -4).enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            let nibble = shift >= 64 ? (high >> UInt64(shift - 64)) & 0xF : (low >> UInt64(shift)) & 0xF
            text.append(digits[Int(nibble)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
