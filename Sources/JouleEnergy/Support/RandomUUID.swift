import JouleHardware

/// A random (version 4) UUID as text, from the kernel's getrandom(2) through
/// SystemRandomNumberGenerator. Foundation's `UUID()` opens /dev/urandom for each one on
/// Linux, without O_CLOEXEC: a descriptor per transfer, and one a hook spawned meanwhile
/// could inherit.
public enum RandomUUID {
    /// 36 characters, 8-4-4-4-12 hex digits in lowercase (RFC 9562's form).
    public static func lowercase() -> String { uppercase().lowercased() }

    /// The same in uppercase (Apple's form, for report identifiers).
    public static func uppercase() -> String {
        var generator = SystemRandomNumberGenerator()
        return versioned(high: generator.next(), low: generator.next()).description
    }

    /// The text of the UUID whose 16 bytes are `high` then `low` (big-endian), with the
    /// version (4) and variant (10) bits set, in lowercase.
    static func format(high: UInt64, low: UInt64) -> String { versioned(high: high, low: low).description.lowercased() }

    /// BeaconUUID is Joule's 128-bit UUID value, and writes the 8-4-4-4-12 text.
    private static func versioned(high: UInt64, low: UInt64) -> BeaconUUID {
        BeaconUUID(high: high & ~0xF000 | 0x4000, low: low & ~(0xC000 << 48) | (0x8000 << 48))
    }
}
