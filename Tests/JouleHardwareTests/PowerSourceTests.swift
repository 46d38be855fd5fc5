import Testing

@testable import JouleHardware

@Suite struct PowerSourceTests {
    static func supplies(_ machine: String) throws -> PowerSupplies {
        try PowerSupplyReader(source: SysfsDeviceSource(root: RAPLFixtures.root(machine).prefix)).read()
    }

    @Test func batteryPowerWhileDischarging() throws {
        let power = try #require(BatteryDischargePower(try Self.supplies(RAPLFixtures.xps)))
        #expect(power.watts == 5.836)
        #expect(power.batteries == ["BAT0"])
        // Two batteries, the idle one "Unknown": only the discharging one counts.
        let thinkpad = try #require(BatteryDischargePower(try Self.supplies("thinkpad-t480-two-batteries-discharging")))
        #expect(thinkpad.watts == 9.874)
    }

    @Test func noBatteryPowerUnlessDischarging() throws {
        // Full on AC, charging, no battery, and a UPS (it feeds the whole desk).
        for machine in ["dell-latitude-7490-full-on-ac", "asus-zenbook-ux433-charging-charge-units",
                        "raspberry-pi-4-no-battery", "desktop-ups-on-battery"] {
            #expect(BatteryDischargePower(try Self.supplies(machine)) == nil, "\(machine)")
        }
    }

    @Test func dischargingWithoutARateOrOnLinePowerIsUnknown() {
        var battery = Battery(name: "BAT0", syspath: "/sys/devices/x/BAT0", state: .discharging)
        battery.energyRateW = 0
        #expect(BatteryDischargePower(PowerSupplies(batteries: [battery])) == nil)
        battery.energyRateW = 7
        #expect(BatteryDischargePower(PowerSupplies(batteries: [battery]))?.watts == 7)
        let ac = LineSource(name: "AC", syspath: "/sys/devices/x/AC", kind: "Mains", online: true)
        #expect(BatteryDischargePower(PowerSupplies(batteries: [battery], lineSources: [ac])) == nil)
    }

    @Test func raplWinsWhenReadable() throws {
        let source = PowerSource.choose(
            rapl: try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps)).read(), supplies: try Self.supplies(RAPLFixtures.xps))
        #expect(source.kind == .rapl)
        #expect(source.origin == "rapl:psys")
        #expect(source.passedOver.isEmpty)
    }

    @Test func batteryWhenRAPLIsRootOnly() throws {
        let rapl = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps), readFile: RAPLFixtures.unprivileged).read()
        let source = PowerSource.choose(rapl: rapl, supplies: try Self.supplies(RAPLFixtures.xps))
        #expect(source.kind == .battery)
        #expect(source.kind.rawValue == "battery")
        #expect(source.battery?.watts == 5.836)
        #expect(source.passedOver.count == 1)
        #expect(source.passedOver[0].hasPrefix("rapl: /sys/class/powercap/"))
        #expect(source.passedOver[0].contains("root-only"))
    }

    @Test func modelWhenNothingMeasures() throws {
        let pi = "raspberry-pi-4-no-battery"
        let source = PowerSource.choose(rapl: try RAPLReader(root: RAPLFixtures.root(pi)).read(), supplies: try Self.supplies(pi))
        #expect(source.kind == .model)
        #expect(source.origin == "model")
        #expect(source.passedOver == ["rapl: no RAPL zones under /sys/class/powercap", "battery: no system battery"])

        // The Ryzen desktop as a user: RAPL root-only, the UPS is no measure of this host.
        let desktop = PowerSource.choose(
            rapl: try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.ryzenDesktop), readFile: RAPLFixtures.unprivileged).read(),
            supplies: try Self.supplies(RAPLFixtures.ryzenDesktop))
        #expect(desktop.kind == .model)
        #expect(desktop.passedOver.last == "battery: no system battery")
    }
}
