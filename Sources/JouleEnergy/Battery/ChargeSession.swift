/// One time the charger was connected: plugged at `pluggedAt`, unplugged at `unpluggedAt`
/// (Unix seconds). Derived from the history's line-power readings.
public struct ChargeSession: Sendable, Equatable {
    public var pluggedAt: Double
    public var unpluggedAt: Double
    public init(pluggedAt: Double, unpluggedAt: Double) {
        self.pluggedAt = pluggedAt
        self.unpluggedAt = unpluggedAt
    }

    /// A gap between readings longer than this ends what is known: the machine was off (or
    /// the daemon was), so a charge on both sides of it is not one session. A night asleep on
    /// the charger (no readings while suspended) is shorter.
    public static let maximumGap: Double = 18 * 3600

    /// The sessions in a series of (time, line online) readings in time order: each run of
    /// online readings that ends in an offline one. A run still online at the end (plugged in
    /// now), or broken by a gap over `maximumGap`, is not a session; a reading that does not
    /// know (nil: no line source) is skipped. The plug time is the first online reading, the
    /// unplug time the first offline one after it, so both are late by at most one interval.
    public static func sessions(_ readings: [(time: Double, lineOnline: Bool?)]) -> [ChargeSession] {
        fold(readings).sessions
    }

    /// When the charge now under way began: the first online reading of the last run of
    /// online readings; nil when the last known reading is offline.
    public static func current(_ readings: [(time: Double, lineOnline: Bool?)]) -> Double? {
        fold(readings).plugged
    }

    private static func fold(_ readings: [(time: Double, lineOnline: Bool?)]) -> (sessions: [ChargeSession], plugged: Double?) {
        var sessions: [ChargeSession] = []
        var plugged: Double?
        var last: Double?
        for reading in readings {
            guard let online = reading.lineOnline, reading.time.isFinite else { continue }
            if let previous = last, reading.time - previous > maximumGap || reading.time < previous { plugged = nil }
            last = reading.time
            if online {
                if plugged == nil { plugged = reading.time }
            } else if let start = plugged {
                sessions.append(ChargeSession(pluggedAt: start, unpluggedAt: reading.time))
                plugged = nil
            }
        }
        return (sessions, plugged)
    }
}
