/// The wall clock (CLOCK_REALTIME), for timestamps that must read as Unix time. Intervals
/// and deadlines use the monotonic clock instead; see `SystemClock`.
public enum WallClock {
    /// Microseconds since the Unix epoch.
    public static func micros() -> Int64 { Syscalls.realtimeMicros() }

    /// Seconds since the Unix epoch.
    public static func seconds() -> Double { Double(Syscalls.realtimeMicros()) / 1e6 }
}
