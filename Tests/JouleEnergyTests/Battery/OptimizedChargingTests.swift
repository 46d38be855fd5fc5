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

    @Test func theKeeperHoldsUntilTheReleaseThenLiftsTheLimitUntilTheUnplug() throws {
        let fw = FirmwareChargeControl([.start: "75\n", .end: "80\n"])
        var keeper = try ChargeLimitKeeperTests.keeper(fw, "75-80")
        _ = keeper.apply(to: ["BAT0"], reason: "start")
        let sessions = Self.history()
        func decide(_ now: Double) -> OptimizedChargingDecision {
            .decide(sessions, now: now, utcOffset: Self.offset, end: 80, percent: 80, ratePerHour: 20)
        }
        // 23:30 and 06:29: held at 80 (nothing written).
        #expect(keeper.optimize(decide(Self.at(-1, 23, 30)), batteries: ["BAT0"], lineOnline: true).isEmpty)
        #expect(keeper.optimize(decide(Self.at(0, 6, 29)), batteries: ["BAT0"], lineOnline: true).isEmpty)
        #expect(fw.values[.end] == "80\n" && !keeper.fullOnce)
        // 06:30: released toward 100 %.
        let lines = keeper.optimize(decide(Self.at(0, 6, 30)), batteries: ["BAT0"], lineOnline: true)
        #expect(lines.first == "optimized charging: releasing the charge limit to be full by 07:30 (unplugged 07:45 ± 0 min on 10 of the last 10 weekdays)")
        #expect(keeper.fullOnce && fw.values[.end] == "100\n")
        // Unplugged at 07:45: the limit returns.
        let unplugged = keeper.observe(ChargeLimitKeeperTests.supplies(fw, percent: 100, online: false))
        #expect(unplugged.first == "charger unplugged after a full charge: the charge limit 75-80 returns")
        #expect(!keeper.fullOnce && fw.values[.end] == "80\n")
    }
}
