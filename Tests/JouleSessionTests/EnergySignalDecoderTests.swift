import JouleWire
import JouleHardware
import JouleSession
import Testing

struct EnergySignalDecoderTests {
    func signal(_ interface: String, _ member: String, _ arguments: [BusValue]) -> BusSignalMessage {
        BusSignalMessage(sender: ":1.5", path: EnergyBus.objectPath, interface: interface, member: member, arguments: arguments)
    }

    @Test func theDaemonsSignalsBecomeEvents() {
        #expect(EnergySignalDecoder.decode(signal(EnergyBus.interfaceName, "PowerStateDidChange", [.bool(true), .string("battery-low")]))
            == [.lowPowerMode(on: true, reason: "battery-low")])
        #expect(EnergySignalDecoder.decode(signal(EnergyBus.interfaceName, "ThermalStateDidChange", [.string("serious"), .string("fair"), .string("x86_pkg_temp")]))
            == [.thermalState("serious")])
        let changed = signal("org.freedesktop.DBus.Properties", "PropertiesChanged", [
            .string(EnergyBus.interfaceName),
            .variantDictionary([("WarningLevel", .string("low")), ("Percentage", .double(9.5))]),
            .array(elementSignature: "s", []),
        ])
        #expect(EnergySignalDecoder.decode(changed) == [.warningLevel("low", percentage: 9.5)])
        #expect(EnergySignalDecoder.decode(signal(EnergyBus.interfaceName, "PowerStateDidChange", [.string("on")])).isEmpty)
    }

    @Test func aCPUMonitorKillBecomesAnEventAndOtherActionsDoNot() {
        func violation(_ action: String) -> BusSignalMessage {
            signal(EnergyBus.interfaceName, "CPUMonitorViolation", [.variantDictionary([
                ("process", .string("spinner")), ("pid", .uint32(42)), ("action", .string(action)),
                ("report", .string("6F9A1C2E-0001")), ("path", .string("/var/lib/joule/reports/x.json")),
            ])])
        }
        #expect(EnergySignalDecoder.decode(violation("kill")) == [.cpuMonitorKill(process: "spinner", reportID: "6F9A1C2E-0001")])
        #expect(EnergySignalDecoder.decode(violation("report")).isEmpty)
        #expect(EnergySignalDecoder.decode(signal(EnergyBus.interfaceName, "CPUMonitorViolation", [.string("kill")])).isEmpty)
    }

    @Test func aFlaggedSleepBecomesAnEventAndANotification() {
        let flagged = signal(EnergyBus.interfaceName, "SleepFlagged", [.variantDictionary([
            ("start", .double(100)), ("end", .double(3700)), ("drainPercentPerHour", .double(4)),
            ("summary", .string("slept 1h 0m (s2idle): 4 %/h, 2 W, woke by ACPI LID0 (wakeup_count +1) — drains fast (over 2 %/h)")),
        ])])
        let events = EnergySignalDecoder.decode(flagged)
        #expect(events == [.sleepDrained(start: 100, summary: "slept 1h 0m (s2idle): 4 %/h, 2 W, woke by ACPI LID0 (wakeup_count +1) — drains fast (over 2 %/h)")])
        var policy = NotificationPolicy()
        let shown = events.flatMap { policy.handle($0) }
        guard case .show(.sleep, let content)? = shown.first else {
            Issue.record("no notification: \(shown)")
            return
        }
        #expect(content.summary == "The battery drained while asleep")
        #expect(content.body.hasPrefix("Slept 1h 0m (s2idle): 4 %/h") && content.urgency == 1)
        #expect(events.flatMap { policy.handle($0) }.isEmpty, "the same sleep once")
    }
}
