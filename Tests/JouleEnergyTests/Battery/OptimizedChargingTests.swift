import JouleEnergy
import JouleHardware
import JouleTesting
import Testing

/// Generated histories around Monday 2026-11-16, in UTC+1; the clock is injected as `now`.
@Suite struct OptimizedChargingTests {
    static let offset = 3600
    static let monday = CivilCalendar.days(year: 2026, month: 11, day: 16)

    /// Unix seconds of local `h:m` on the day `daysFromMonday` away from Monday 16th.
    static func at(_ daysFromMonday: Int64, _ h: Int, _ m: Int) -> Double {
        Double(monday + daysFromMonday) * 86_400 - Double(offset) + Double(h * 3600 + m * 60)
    }

    /// Four weeks of overnight charges: plugged 23:00 the evening before, unplugged at
    /// `weekday(day)` on weekdays and 09:30 on weekends; `skip` days without a charge.
    static func history(days: ClosedRange<Int64> = -28 ... -1, skip: Set<Int64> = [], weekday: (Int64) -> (Int, Int) = { _ in (7, 45) }) -> [ChargeSession] {
        days.filter { !skip.contains($0) }.map { day in
            let weekdayIndex = ((day % 7) + 7) % 7  // 0 Monday … 5 Saturday, 6 Sunday
            let (h, m) = weekdayIndex >= 5 ? (9, 30) : weekday(day)
            return ChargeSession(pluggedAt: at(day - 1, 23, 0), unpluggedAt: at(day, h, m))
        }
    }

    static func clock(_ t: Double) -> String { UnplugPredictor.clock(t, offset) }

    @Test func aRegularWeekdayRoutineHoldsAt80AndReleasesToBeFullBeforeTheUsualUnplug() throws {
        // Weekdays 07:40, 07:45 or 07:50; Sunday night 23:30 on the charger.
        let sessions = Self.history(weekday: { day in [(7, 40), (7, 45), (7, 50)][Int(((day % 3) + 3) % 3)] })
        let now = Self.at(-1, 23, 30)
        let prediction = try UnplugPredictor.predict(sessions, now: now, utcOffset: Self.offset).get()
        #expect(Self.clock(prediction.unplug) == "07:45")
        #expect(prediction.description == "full by 07:30 (unplugged 07:45 ± 5 min on 10 of the last 10 weekdays)")
        // 80 → 100 % at 20 %/h takes an hour: hold until 06:30.
        let decision = OptimizedChargingDecision.decide(sessions, now: now, utcOffset: Self.offset, end: 80, percent: 78, ratePerHour: 20)
        #expect(decision == .hold(until: Self.at(0, 6, 30), prediction: prediction))
        // At 06:30 the hold is released; with no measured rate (10 %/h assumed: two hours) at 05:30.
        #expect(OptimizedChargingDecision.decide(sessions, now: Self.at(0, 6, 30), utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20) == .release(prediction: prediction))
        #expect(ChargeReleasePlanner.release(prediction, end: 80, percent: 80, ratePerHour: nil) == Self.at(0, 5, 30))
        // On Saturday morning the weekend routine: 09:30, from 4 of the last 4 weekend days.
        let saturday = try UnplugPredictor.predict(Self.history(days: -28 ... 4), now: Self.at(4, 23, 0), utcOffset: Self.offset).get()
        #expect(saturday.description == "full by 09:15 (unplugged 09:30 ± 0 min on 4 of the last 4 weekend days)")
    }

    @Test func aRoutineThatChangesMovesThePredictionAfterThreeMornings() throws {
        // From Wednesday 11th (day -5) the unplug moves to 08:30: a later unplug never misses.
        let later: (Int64) -> (Int, Int) = { $0 >= -5 ? (8, 30) : (7, 45) }
        let two = try UnplugPredictor.predict(Self.history(days: -28 ... -5, weekday: later), now: Self.at(-5, 23, 0), utcOffset: Self.offset).get()
        #expect(Self.clock(two.unplug) == "07:45")  // Wed only (Thu next): 1 of the recent 5
        let three = try UnplugPredictor.predict(Self.history(weekday: later), now: Self.at(-1, 23, 0), utcOffset: Self.offset).get()
        #expect(Self.clock(three.unplug) == "08:30")  // Wed, Thu, Fri of the recent 5
        #expect(OptimizedChargingDecision.decide(Self.history(weekday: later), now: Self.at(-1, 23, 0), utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20)
            == .hold(until: Self.at(0, 7, 15), prediction: three))
    }

    @Test func thinEvidenceChargesNormallyAndSaysWhy() {
        // Only four overnight charges in the last two weeks.
        let sessions = Self.history(days: -4 ... -1) + Self.history(days: -28 ... -20)
        let decision = OptimizedChargingDecision.decide(sessions, now: Self.at(-1, 23, 0), utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20)
        #expect(decision == .normal(reason: .thin(days: 4, inGroup: 2, group: "weekdays")))
        if case .normal(let reason) = decision {
            #expect(reason.description == "charging normally: too little evidence (overnight charges on 4 of the last 14 days, 2 on weekdays; needs 5 and 3)")
        }
        // Short top-ups and charges begun after 03:00 are not overnight charges.
        let topUps = (-14 ... -1).map { ChargeSession(pluggedAt: Self.at($0, 4, 0), unpluggedAt: Self.at($0, 9, 0)) }
            + (-14 ... -1).map { ChargeSession(pluggedAt: Self.at($0, 2, 0), unpluggedAt: Self.at($0, 5, 0)) }
        #expect(OptimizedChargingDecision.decide(topUps, now: Self.at(-1, 23, 0), utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20)
            == .normal(reason: .thin(days: 0, inGroup: 0, group: "weekdays")))
    }

    @Test func aMissedPredictionFallsBackToNormalChargingForAWeek() throws {
        // Thursday 12th (day -4): unplugged 06:50, 40 min before the predicted full 07:30.
        let missed = Self.history(weekday: { $0 == -4 ? (6, 50) : (7, 45) })
        let decision = OptimizedChargingDecision.decide(missed, now: Self.at(-1, 23, 0), utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20)
        #expect(decision == .normal(reason: .missed(day: "2026-11-12", predicted: "07:30", unplugged: "06:50")))
        if case .normal(let reason) = decision {
            #expect(reason.description == "charging normally: a prediction missed recently (on 2026-11-12 full by 07:30 was predicted, unplugged 06:50)")
        }
        // 20 min early (07:10) is within the 30 min: still optimized.
        let close = Self.history(weekday: { $0 == -4 ? (7, 10) : (7, 45) })
        #expect(try UnplugPredictor.predict(close, now: Self.at(-1, 23, 0), utcOffset: Self.offset).get().unplug == Self.at(0, 7, 45))
        // Eight days later the miss has aged out of the week.
        let aged = Self.history(days: -28 ... 6, weekday: { $0 == -4 ? (6, 50) : (7, 45) })
        #expect(try UnplugPredictor.predict(aged, now: Self.at(6, 23, 0), utcOffset: Self.offset).get().unplug == Self.at(7, 7, 45))
    }

    @Test func theKeeperHoldsOvernightReleasesToBeFullAndChargesNormallyOtherwise() throws {
        let fw = FirmwareChargeControl([.start: "75\n", .end: "80\n"])
        var keeper = ChargeLimitKeeper(limit: try ChargeLimitRequest.parse("75-80"), files: { _ in fw }, optimizedCharging: true)
        // Optimized charging starts by charging normally: the thresholds go to 0-100.
        _ = keeper.apply(to: ["BAT0"], reason: "start")
        #expect(fw.values[.start] == "0\n" && fw.values[.end] == "100\n")
        let sessions = Self.history()
        func decide(_ now: Double, plugged: Double = Self.at(-1, 23, 0)) -> OptimizedChargingDecision {
            .decide(sessions, now: now, utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20, pluggedAt: plugged)
        }
        // Plugged in at 23:00: held at 75-80, said once.
        #expect(keeper.optimize(decide(Self.at(-1, 23, 30)), batteries: ["BAT0"], lineOnline: true, utcOffset: Self.offset) == [
            "optimized charging: holding at 80 % until 06:30, full by 07:30 (unplugged 07:45 ± 0 min on 10 of the last 10 weekdays)",
            "BAT0: charge limit 75-80 (optimized charging holds): wrote charge_control_end_threshold=80, charge_control_start_threshold=75",
        ])
        #expect(keeper.optimize(decide(Self.at(0, 6, 29)), batteries: ["BAT0"], lineOnline: true, utcOffset: Self.offset).isEmpty)
        #expect(keeper.holding && fw.values[.end] == "80\n")
        // 06:30: released toward 100 %.
        let lines = keeper.optimize(decide(Self.at(0, 6, 30)), batteries: ["BAT0"], lineOnline: true, utcOffset: Self.offset)
        #expect(lines.first == "optimized charging: charging to 100 %, full by 07:30 (unplugged 07:45 ± 0 min on 10 of the last 10 weekdays)")
        #expect(!keeper.holding && fw.values[.end] == "100\n")
        // Unplugged at 07:45 and plugged in at lunchtime: not overnight, charges normally.
        #expect(keeper.optimize(decide(Self.at(0, 7, 45)), batteries: ["BAT0"], lineOnline: false, utcOffset: Self.offset).isEmpty)
        let lunch = keeper.optimize(decide(Self.at(0, 12, 30), plugged: Self.at(0, 12, 30)), batteries: ["BAT0"], lineOnline: true, utcOffset: Self.offset)
        #expect(lunch == ["optimized charging: charging normally: plugged in over 14 h before the usual full time 07:30, not overnight"])
        #expect(!keeper.holding && fw.values[.end] == "100\n")
        // Thin evidence: normal charging, with the reason.
        let thin = OptimizedChargingDecision.decide([], now: Self.at(0, 23, 0), utcOffset: Self.offset, end: 80, percent: 60, ratePerHour: nil)
        #expect(keeper.optimize(thin, batteries: ["BAT0"], lineOnline: true, utcOffset: Self.offset).first?.hasPrefix("optimized charging: charging normally: too little evidence") == true)
        #expect(!keeper.holding && fw.values[.end] == "100\n")
    }

    @Test func sessionsComeFromTheHistorysLinePowerReadings() {
        let m = 60.0
        let readings: [(time: Double, lineOnline: Bool?)] = [
            (0, false), (10 * m, true), (20 * m, nil), (30 * m, true), (40 * m, false),  // one session 10 → 40 min
            (50 * m, true), (50 * m + 19 * 3600, true), (50 * m + 20 * 3600, false),  // a 19 h gap: begins again after it
            (80 * 3600, true), (81 * 3600, true),  // plugged in now
        ]
        #expect(ChargeSession.sessions(readings) == [
            ChargeSession(pluggedAt: 10 * m, unpluggedAt: 40 * m), ChargeSession(pluggedAt: 50 * m + 19 * 3600, unpluggedAt: 50 * m + 20 * 3600),
        ])
        let now: Double? = 80 * 3600
        #expect(ChargeSession.current(readings) == now)
        #expect(ChargeSession.current(Array(readings.prefix(5))) == nil)
    }

    @Test func theChargeRateIsMeasuredAboveTheHoldLevelOnly() {
        let m = 60.0
        // 80 → 90 % in an hour while charging (12 %/h below 80 is not counted; a 2 h gap neither).
        let readings: [(time: Double, percent: Double?, charging: Bool)] = [
            (0, 68, true), (60 * m, 80, true), (90 * m, 85, true), (120 * m, 90, true),
            (240 * m, 99, true), (250 * m, nil, true), (260 * m, 98, false),
        ]
        #expect(ChargeRate.percentPerHour(readings, from: 80) == 10)
        #expect(ChargeRate.percentPerHour(Array(readings.prefix(2)), from: 80) == nil)  // no evidence above 80
    }
}
