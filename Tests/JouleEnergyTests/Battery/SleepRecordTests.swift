import Testing

import JouleHardware
@testable import JouleEnergy

/// A sleep from the notes before and after: the rates, the 2 %/h flag, unknowns kept nil.
@Suite struct SleepRecordTests {
    static let night = 1_780_000_000.0

    func close(_ value: Double?, _ expected: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) < 1e-9
    }

    @Test func anEightHourNightFromEnergy() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: 40, energyFullWh: 50, percentage: 80),
                after: SleepNote(time: Self.night + 8 * 3600, energyWh: 32, energyFullWh: 50, percentage: 64),
                wakeReason: "ACPI LID0 (wakeup_count +1)", mode: "s2idle"))
        #expect(record.energyBeforeWh == 40 && record.energyAfterWh == 32)
        #expect(record.drainW == 1)
        #expect(close(record.drainPercentPerHour, 2))
        #expect(!record.isFlagged, "exactly 2 %/h is not over it")
        #expect(record.summary == "slept 8h 0m (s2idle): 2 %/h, 1 W, woke by ACPI LID0 (wakeup_count +1)")
    }

    @Test func overTwoPercentAnHourIsFlagged() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: 40, energyFullWh: 50, percentage: 80),
                after: SleepNote(time: Self.night + 3600, energyWh: 38.5, energyFullWh: 50, percentage: 77),
                wakeReason: "irq 9", mode: "deep"))
        #expect(close(record.drainPercentPerHour, 3))
        #expect(record.isFlagged)
        #expect(record.summary == "slept 1h 0m (deep): 3 %/h, 1.5 W, woke by irq 9 — drains fast (over 2 %/h)")
    }

    @Test func withoutEnergyThePercentagesGiveTheRateAndWattsStayUnknown() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: nil, percentage: 90),
                after: SleepNote(time: Self.night + 2 * 3600, energyWh: nil, percentage: 80), wakeReason: nil, mode: nil))
        #expect(close(record.drainPercentPerHour, 5) && record.drainW == nil)
        #expect(record.isFlagged)
        #expect(record.summary == "slept 2h 0m: 5 %/h, woke by an unknown reason — drains fast (over 2 %/h)")
    }

    @Test func energyWithoutFullEnergyGivesWattsAndThePercentFromPercentages() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: 40, percentage: 80),
                after: SleepNote(time: Self.night + 3600, energyWh: 39.52, percentage: 79), wakeReason: nil, mode: nil))
        #expect(close(record.drainPercentPerHour, 1))
        #expect(close(record.drainW, 0.48))
    }

    @Test func nothingKnownIsNilNeverZeroAndNeverFlagged() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: nil, percentage: nil),
                after: SleepNote(time: Self.night + 3600, energyWh: -1, percentage: .nan), wakeReason: nil, mode: nil))
        #expect(record.energyBeforeWh == nil && record.energyAfterWh == nil)
        #expect(record.drainPercentPerHour == nil && record.drainW == nil)
        #expect(!record.isFlagged)
        #expect(record.summary == "slept 1h 0m: drain unknown, woke by an unknown reason")
    }

    @Test func aShortSleepIsNeverFlagged() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: nil, percentage: 80),
                after: SleepNote(time: Self.night + 120, energyWh: nil, percentage: 79), wakeReason: nil, mode: nil))
        #expect(close(record.drainPercentPerHour, 30))
        #expect(!record.isFlagged)
        #expect(record.summary.hasPrefix("slept 2m 0s: 30 %/h"))
    }

    @Test func chargingWhileAsleepIsANegativeDrain() throws {
        let record = try #require(
            SleepRecord(
                before: SleepNote(time: Self.night, energyWh: 30, energyFullWh: 50, percentage: 60),
                after: SleepNote(time: Self.night + 3600, energyWh: 40, energyFullWh: 50, percentage: 80), wakeReason: nil, mode: nil))
        #expect(close(record.drainW, -10) && close(record.drainPercentPerHour, -20) && !record.isFlagged)
    }

    @Test func notesOutOfOrderAreNoSleep() {
        let note = SleepNote(time: Self.night, energyWh: 40, percentage: 80)
        #expect(SleepRecord(before: note, after: note, wakeReason: nil, mode: nil) == nil)
        #expect(SleepRecord(before: note, after: SleepNote(time: Self.night - 5, energyWh: 40, percentage: 80), wakeReason: nil, mode: nil) == nil)
    }

    @Test func numbersAreShortAndExact() {
        #expect(SleepRecord.format(2) == "2")
        #expect(SleepRecord.format(2.4) == "2.4")
        #expect(SleepRecord.format(0.963) == "0.96")
        #expect(SleepRecord.format(0.05) == "0.05")
        #expect(SleepRecord.format(-1.5) == "-1.5")
        #expect(SleepRecord.format(-0.001) == "0")
    }
}

/// The daemon's pending note and its turning into a record at resume.
@Suite struct SleepAccountTests {
    static let lid = WakeupSource(id: "wakeup2", name: "ACPI LID0", eventCount: 40, wakeupCount: 7)

    @Test func aNightIsNotedBeforeAndAccountedAtResume() throws {
        var account = SleepAccount()
        var composite = CompositeBattery(
            percentage: 80, energyWh: 40, energyFullWh: 50, energyRateW: nil, state: .discharging, timeToEmptyS: nil, timeToFullS: nil)
        account.preparing(SleepAccount.note(time: 1000, composite), wakeups: WakeupSnapshot(sources: [Self.lid]), mode: "deep")
        #expect(account.pending != nil && account.count == 0)
        composite.energyWh = 38.5
        composite.percentage = 77
        var woke = Self.lid
        woke.wakeupCount = 8
        let resumed = account.resumed(SleepAccount.note(time: 1000 + 3600, composite), wakeups: WakeupSnapshot(sources: [woke]))
        let record = try #require(resumed)
        #expect(record.wakeReason == "ACPI LID0 (wakeup_count +1)" && record.mode == "deep")
        #expect(record.energyBeforeWh == 40 && record.energyAfterWh == 38.5 && record.isFlagged)
        #expect(account.pending == nil && account.count == 1 && account.last == record)
    }

    @Test func aResumeWithoutANoteBeforeIsNoSleep() {
        var account = SleepAccount()
        let resumed = account.resumed(SleepAccount.note(time: 1000, nil), wakeups: WakeupSnapshot())
        #expect(resumed == nil)
        #expect(account.count == 0 && account.last == nil)
    }

    @Test func withoutABatteryTheSleepIsCountedWithUnknowns() throws {
        var account = SleepAccount()
        account.preparing(SleepAccount.note(time: 1000, nil), wakeups: WakeupSnapshot(), mode: nil)
        let resumed = account.resumed(SleepAccount.note(time: 5000, nil), wakeups: WakeupSnapshot(wakeupIRQ: 9))
        let record = try #require(resumed)
        #expect(record.drainW == nil && record.drainPercentPerHour == nil && record.wakeReason == "irq 9" && !record.isFlagged)
        #expect(account.count == 1)
    }
}

extension SleepRecordTests {
    /// A record read back from a damaged history (issue 36's sleeps in history.db) may hold any
    /// double: its summary prints them rather than trapping on the conversion to an integer.
    @Test func anAbsurdRecordSummarisesWithoutTrapping() {
        let record = SleepRecord(
            start: -1e308, end: 1_000, energyBeforeWh: nil, energyAfterWh: nil, drainPercentPerHour: 1e300, drainW: -1e307,
            wakeReason: nil, mode: "deep")
        #expect(record.summary == "slept 1e+308s (deep): 1e+300 %/h, -1e+307 W, woke by an unknown reason — drains fast (over 2 %/h)")
    }
}
