import JouleEnergy
import JouleHardware
import JouleTesting
import Testing

@Suite struct ChargeLimitKeeperTests {
    /// The supplies as the daemon would read them now from `firmware`: one battery at
    /// `percent`, the charger `online` or not.
    static func supplies(_ firmware: FirmwareChargeControl, percent: Double, online: Bool) -> PowerSupplies {
        var battery = Battery(name: firmware.battery, syspath: "/sys/class/power_supply/\(firmware.battery)")
        battery.percentage = percent
        battery.chargeLimit = ChargeLimitReading(state: ChargeControlState.read(firmware))
        return PowerSupplies(batteries: [battery], lineSources: [LineSource(name: "AC", syspath: "/sys/class/power_supply/AC", kind: "Mains", online: online)])
    }

    static func keeper(_ firmware: FirmwareChargeControl, _ limit: String) throws -> ChargeLimitKeeper {
        ChargeLimitKeeper(limit: try ChargeLimitRequest.parse(limit), files: { _ in firmware })
    }

    @Test func anECResetIsCaughtByTheReadBackLoggedOnceAndAppliedAgain() throws {
        let fw = FirmwareChargeControl([.start: "96\n", .end: "100\n"])
        var keeper = try Self.keeper(fw, "75-80")
        #expect(keeper.apply(to: ["BAT0"], reason: "start") == [
            "BAT0: charge limit 75-80 (start): wrote charge_control_start_threshold=75, charge_control_end_threshold=80"
        ])
        #expect(keeper.observe(Self.supplies(fw, percent: 60, online: true)).isEmpty)  // holds: nothing to do
        // The embedded controller resets (as after a power loss): the thresholds read 96-100.
        fw.values[.start] = "96\n"
        fw.values[.end] = "100\n"
        let lines = keeper.observe(Self.supplies(fw, percent: 60, online: true))
        #expect(lines.first == "BAT0: charge thresholds read 96-100, not 75-80 (reset by the firmware?): applying again")
        #expect(fw.values[.end] == "80\n" && fw.values[.start] == "75\n")
    }

    @Test func aLimitThatNeverHoldsIsLoggedOnceNotEveryPoll() throws {
        let fw = FirmwareChargeControl([.end: "100\n"])
        fw.ignoresWrites = true
        var keeper = try Self.keeper(fw, "80")
        let first = keeper.apply(to: ["BAT0"], reason: "start")
        #expect(first.contains("BAT0: charge limit 80 does not hold: /sys/class/power_supply/BAT0/charge_control_end_threshold reads 100 after writing 80"))
        #expect(keeper.apply(to: ["BAT0"], reason: "resume").allSatisfy { !$0.contains("does not hold") })
        #expect(keeper.observe(Self.supplies(fw, percent: 50, online: true)).isEmpty)
    }

    @Test func fullOnceLiftsTheLimitUntilTheChargerIsUnplugged() throws {
        let fw = FirmwareChargeControl([.start: "75\n", .end: "80\n"])
        var keeper = try Self.keeper(fw, "75-80")
        _ = keeper.apply(to: ["BAT0"], reason: "start")
        _ = keeper.chargeFullOnce(batteries: ["BAT0"], lineOnline: true)
        #expect(keeper.fullOnce && fw.values[.end] == "100\n" && fw.values[.start] == "0\n")
        // Charging on: the lifted thresholds are what should read back, so nothing is re-applied.
        #expect(keeper.observe(Self.supplies(fw, percent: 97, online: true)).isEmpty)
        let unplugged = keeper.observe(Self.supplies(fw, percent: 100, online: false))
        #expect(unplugged.first == "charger unplugged after a full charge: the charge limit 75-80 returns")
        #expect(!keeper.fullOnce && fw.values[.end] == "80\n")
    }

    @Test func anEmulatedStartInhibitsAtTheEndAndReleasesAtTheStart() throws {
        let fw = FirmwareChargeControl([.behaviour: "[auto] inhibit-charge force-discharge\n"])
        var keeper = try Self.keeper(fw, "75-80")
        #expect(keeper.apply(to: ["BAT0"], reason: "start").isEmpty)
        #expect(keeper.observe(Self.supplies(fw, percent: 70, online: true)).isEmpty)
        #expect(keeper.observe(Self.supplies(fw, percent: 80, online: true)) == ["BAT0: charge_behaviour inhibit-charge (at 80.0 %)"])
        #expect(keeper.observe(Self.supplies(fw, percent: 77, online: true)).isEmpty)  // between: held
        #expect(keeper.observe(Self.supplies(fw, percent: 75, online: false)) == ["BAT0: charge_behaviour auto (at 75.0 %)"])
        // Stopping while inhibited releases the hold.
        _ = keeper.observe(Self.supplies(fw, percent: 81, online: true))
        #expect(keeper.release(Self.supplies(fw, percent: 81, online: true)) == ["BAT0: charge_behaviour auto (joule is stopping)"])
        #expect(fw.values[.behaviour] == "[auto] inhibit-charge force-discharge\n")
    }

    @Test func aRefusalIsLoggedOnceWithTheFileAndNotReportedAsApplied() throws {
        let fw = FirmwareChargeControl([.start: "96\n", .end: "100\n"])
        fw.refusal = .permissionDenied
        var keeper = try Self.keeper(fw, "75-80")
        let lines = keeper.apply(to: ["BAT0"], reason: "start")
        #expect(lines == ["BAT0: charge limit 75-80 (start): /sys/class/power_supply/BAT0/charge_control_start_threshold: the kernel refused '75': Permission denied (EACCES)"])
        #expect(keeper.outcomes["BAT0"] == nil && keeper.failures["BAT0"] != nil)
        #expect(keeper.apply(to: ["BAT0"], reason: "resume").isEmpty)
    }
}
