/// Time arithmetic for the beacon engines, in Unix microseconds. Inputs come from captures
/// and users, so conversions clamp instead of trapping, and implausible instants are refused.
public enum BeaconTime {
    /// Latest accepted instant: the end of year 9999. Later (or negative) capture timestamps are
    /// corruption; accepting them would send the engines stepping through billions of timers.
    public static let latestMicros: Int64 = 253_402_300_800_000_000
    /// Longest configurable duration: about 31 years.
    public static let longestMicros: Int64 = 1_000_000_000_000_000

    public static func isPlausible(_ micros: Int64) -> Bool { micros >= 0 && micros <= latestMicros }

    /// A span in microseconds, rounded, clamped to 1 µs…`longestMicros`.
    public static func micros(_ span: Duration) -> Int64 {
        guard span > .zero else { return 1 }
        let (seconds, attoseconds) = span.components
        guard seconds < longestMicros / 1_000_000 else { return longestMicros }
        let value = seconds * 1_000_000 + (attoseconds + 500_000_000_000) / 1_000_000_000_000
        return min(max(value, 1), longestMicros)
    }
}
