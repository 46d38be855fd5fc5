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
