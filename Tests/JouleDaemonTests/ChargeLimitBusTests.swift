import JouleEnergy
import JouleHardware
@testable import JouleDaemon
import Testing

/// `SetChargeLimit(start, end)`'s arguments: start 0 is no start, (0, 100) is off, and what
/// breaks a rule is InvalidArgs naming it.
struct ChargeLimitBusTests {
    @Test func argumentsBecomeARequest() throws {
        #expect(try EnergyService.chargeLimit(start: 75, end: 80) == ChargeLimitRequest(start: 75, end: 80))
        #expect(try EnergyService.chargeLimit(start: 0, end: 80) == ChargeLimitRequest(start: nil, end: 80))
        #expect(try EnergyService.chargeLimit(start: 0, end: 100) == .off)
    }

    @Test(arguments: [
        (UInt32(80), UInt32(75), "charge limit start (80) must be below its end (75)"),
        (0, 0, "charge limit end must be 1-100 %, not 0"),
        (0, 101, "charge limit end must be 1-100 %, not 101"),
        (100, 100, "charge limit start must be 0-99 %, not 100"),
        (0, UInt32.max, "charge limit end must be 1-100 %, not 4294967295"),
    ])
    func aBrokenRuleIsInvalidArgs(_ start: UInt32, _ end: UInt32, _ message: String) {
        do {
            _ = try EnergyService.chargeLimit(start: start, end: end)
            Issue.record("(\(start), \(end)) was accepted")
        } catch {
            #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }
}

/// `SleepFlagged`'s dictionary: every known value, unknowns left out, the summary line.
@Suite struct SleepFlaggedBusTests {
    @Test func aSleepBecomesItsDictionary() throws {
        let known = SleepRecord(
            start: 100, end: 3700, energyBeforeWh: 40, energyAfterWh: 38, drainPercentPerHour: 4, drainW: 2,
            wakeReason: "ACPI LID0 (wakeup_count +1)", mode: "s2idle")
        let entries = try #require(EnergyService.sleep(known).stringKeyedEntries)
        #expect(entries.map(\.0) == ["start", "end", "mode", "drainPercentPerHour", "drainW", "energyBeforeWh", "energyAfterWh", "wakeReason", "summary"])
        #expect(entries.first { $0.0 == "summary" }?.1 == .string("slept 1h 0m (s2idle): 4 %/h, 2 W, woke by ACPI LID0 (wakeup_count +1) — drains fast (over 2 %/h)"))
        let unknown = SleepRecord(start: 100, end: 200, energyBeforeWh: nil, energyAfterWh: nil, drainPercentPerHour: nil, drainW: nil, wakeReason: nil, mode: nil)
        #expect(try #require(EnergyService.sleep(unknown).stringKeyedEntries).map(\.0) == ["start", "end", "summary"])
    }
}
