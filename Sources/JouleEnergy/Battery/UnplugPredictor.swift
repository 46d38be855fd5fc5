import JouleHardware

/// Predicts when the charger will be unplugged next morning from the overnight charges of
/// the last two weeks. Pure: every time is given, the clock is `now`, the zone a UTC offset.
public enum UnplugPredictor {
    /// A charge counts as overnight when it began before 03:00 local on the morning it ended:
    /// someone who plugs in after 3 at night is not on a bedtime routine.
    public static let overnightPlugBefore: Double = 3 * 3600
    /// …and lasted at least 4 h: a shorter one is a top-up, not a night's sleep.
    public static let overnightMinimum: Double = 4 * 3600
    /// The evidence window: the "5 of the last 14 days". Two weeks follow a change of
    /// routine within days yet cover every weekday twice.
    public static let windowDays: Int64 = 14
    /// At least this many days of the window must end in an overnight unplug, else the
    /// routine is not regular enough to hold the battery back on.
    public static let minimumDays = 5
    /// And at least this many of them on the same kind of day as the coming morning
    /// (weekdays and weekends differ; 3 so a median means something).
    public static let minimumInGroup = 3
    /// The prediction is the median of the most recent this-many same-group unplugs, so a
    /// new routine takes over after three mornings (a majority of five).
    public static let recent = 5
    /// The battery should be full this long before the predicted unplug.
    public static let margin: Double = 15 * 60
    /// An unplug this long before the predicted full time is a missed prediction…
    public static let missedBy: Double = 30 * 60
    /// …and one within this many days makes the daemon charge normally: being caught at
    /// 80 % once is tolerable, twice in a week is not.
    public static let missedWithinDays: Int64 = 7

    /// A prediction for the morning after `now`, or why there is none.
    public static func predict(_ sessions: [ChargeSession], now: Double, utcOffset: Int) -> Result<UnplugPrediction, Reason> {
        let target = morning(after: now, utcOffset)
        switch predict(sessions, day: target, utcOffset: utcOffset) {
        case .failure(let reason): return .failure(reason)
        case .success(let prediction):
            // A missed prediction recently: would the predictor, on that morning, have been wrong?
            for day in (target - missedWithinDays)..<target {
                let start = dayStart(day, utcOffset)
                let earlier = sessions.filter { $0.unpluggedAt < start }
                guard case .success(let then) = predict(earlier, day: day, utcOffset: utcOffset) else { continue }
                for session in sessions where session.pluggedAt < start + overnightPlugBefore
                    && session.unpluggedAt >= start + overnightPlugBefore && session.unpluggedAt < start + 86_400
                    && session.unpluggedAt <= then.fullBy - missedBy
                {
                    return .failure(.missed(day: clockDay(day), predicted: clock(then.fullBy, utcOffset), unplugged: clock(session.unpluggedAt, utcOffset)))
                }
            }
            return .success(prediction)
        }
    }

    /// Why the daemon charges normally.
    public enum Reason: Error, Sendable, Equatable, CustomStringConvertible {
        case thin(days: Int, inGroup: Int, group: String)
        case missed(day: String, predicted: String, unplugged: String)
        /// Plugged in too long before the morning's full time to be an overnight charge.
        case daytime(fullBy: String)

        public var description: String {
            switch self {
            case .thin(let days, let inGroup, let group):
                "charging normally: too little evidence (overnight charges on \(days) of the last \(UnplugPredictor.windowDays) days, \(inGroup) on \(group); needs \(UnplugPredictor.minimumDays) and \(UnplugPredictor.minimumInGroup))"
            case .missed(let day, let predicted, let unplugged):
                "charging normally: a prediction missed recently (on \(day) full by \(predicted) was predicted, unplugged \(unplugged))"
            case .daytime(let fullBy):
                "charging normally: plugged in over \(Int(OptimizedChargingDecision.overnightWindow / 3600)) h before the usual full time \(fullBy), not overnight"
            }
        }
    }

    /// The prediction for local day `day` (days since 1970-01-01) from sessions before it.
    static func predict(_ sessions: [ChargeSession], day target: Int64, utcOffset: Int) -> Result<UnplugPrediction, Reason> {
        let weekend = isWeekend(target)
        let group = weekend ? "weekend days" : "weekdays"
        var byDay: [Int64: Double] = [:]  // the local day's overnight unplug, seconds after its midnight
        for session in sessions {
            let day = localDay(session.unpluggedAt, utcOffset)
            guard day < target, day >= target - windowDays else { continue }
            let start = dayStart(day, utcOffset)
            guard session.pluggedAt < start + overnightPlugBefore, session.unpluggedAt >= start + overnightPlugBefore,
                  session.unpluggedAt - session.pluggedAt >= overnightMinimum else { continue }
            byDay[day] = max(byDay[day] ?? 0, session.unpluggedAt - start)
        }
        let groupDays = ((target - windowDays)..<target).filter { isWeekend($0) == weekend }
        let inGroup = groupDays.filter { byDay[$0] != nil }
        guard byDay.count >= minimumDays, inGroup.count >= minimumInGroup else {
            return .failure(.thin(days: byDay.count, inGroup: inGroup.count, group: group))
        }
        let times = inGroup.suffix(recent).compactMap { byDay[$0] }
        let usual = median(times)
        let spread = median(times.map { abs($0 - usual) })
        let unplug = dayStart(target, utcOffset) + usual
        return .success(UnplugPrediction(unplug: unplug, fullBy: unplug - margin, spread: spread,
                                         matching: inGroup.count, considered: groupDays.count, group: group, utcOffset: utcOffset))
    }

    /// The local day whose morning comes next: today before noon, else tomorrow.
    static func morning(after now: Double, _ utcOffset: Int) -> Int64 {
        let day = localDay(now, utcOffset)
        return now - dayStart(day, utcOffset) < 12 * 3600 ? day : day + 1
    }

    static func localDay(_ t: Double, _ utcOffset: Int) -> Int64 { Int64(((t + Double(utcOffset)) / 86_400).rounded(.down)) }
    static func dayStart(_ day: Int64, _ utcOffset: Int) -> Double { Double(day) * 86_400 - Double(utcOffset) }
    /// 1970-01-01 was a Thursday: (day + 4) mod 7 is 0 on Sundays, 6 on Saturdays.
    static func isWeekend(_ day: Int64) -> Bool {
        let weekday = ((day + 4) % 7 + 7) % 7
        return weekday == 0 || weekday == 6
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Local "HH:MM".
    public static func clock(_ t: Double, _ utcOffset: Int) -> String {
        let seconds = Int((t + Double(utcOffset)).rounded(.down))
        let minuteOfDay = ((seconds / 60) % 1440 + 1440) % 1440
        let h = minuteOfDay / 60, m = minuteOfDay % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    static func clockDay(_ day: Int64) -> String {
        let d = CivilCalendar.date(days: day)
        return "\(d.year)-" + (d.month < 10 ? "0" : "") + "\(d.month)-" + (d.day < 10 ? "0" : "") + "\(d.day)"
    }
}
