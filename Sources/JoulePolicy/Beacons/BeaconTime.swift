/// Time arithmetic for the beacon engines, in Unix microseconds. Inputs come from captures
/// and users, so conversions clamp instead of trapping, and implausible instants are refused.
public enum BeaconTime {
    /// Latest accepted instant: the end of year 9999. Later (or negative) capture timestamps are
    /// corruption; accepting them would send the engines stepping through billions of timers.
    public static let latestMicros: Int64 = 253_402_300_800_000_000
    /// Longest configurable duration: about 31 years.
    public static let longestMicros: Int64 = 1_000_000_000_000_000

    public static func isPlausible(_ micros: Int64) -> Bool { micros >= 0 && micros <= latestMicros }

    /// Seconds to microseconds, clamped to 1 µs…`longestMicros` (NaN becomes 1 µs).
    public static func micros(seconds: Double) -> Int64 {
        let value = (seconds * 1_000_000).rounded()
        guard value >= 1 else { return 1 }
        guard value < Double(longestMicros) else { return longestMicros }
        return Int64(value)
    }
}
