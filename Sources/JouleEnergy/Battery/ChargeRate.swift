/// This battery's own recent charge rate above the hold level, the part a release has to
/// charge: from the history's readings, so a slow charger or an aged cell releases earlier.
public enum ChargeRate {
    /// Readings further apart than this are not one stretch of charging (a sleep, a gap).
    public static let maximumStep: Double = 30 * 60
    /// Less charging time than this measured says nothing (the planner assumes a rate).
    public static let minimumEvidence: Double = 15 * 60

    /// Percent per hour over the stretches where two consecutive readings both charge, both
    /// at or above `from` percent, and the level did not fall; nil with too little of it.
    public static func percentPerHour(_ readings: [(time: Double, percent: Double?, charging: Bool)], from: Double) -> Double? {
        var gained = 0.0, seconds = 0.0
        for (a, b) in zip(readings, readings.dropFirst()) {
            guard a.charging, b.charging, let was = a.percent, let now = b.percent, was >= from, now >= was else { continue }
            let step = b.time - a.time
            guard step > 0, step <= maximumStep else { continue }
            gained += now - was
            seconds += step
        }
        guard seconds >= minimumEvidence, gained > 0 else { return nil }
        return gained / seconds * 3600
    }
}
