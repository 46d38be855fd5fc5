import JouleHardware
import JouleSession
import JouleWorkloads
import Testing

struct SessionSettingsTests {
    @Test func defaultsAndAFullSection() throws {
        #expect(try SessionSettings.parse(yaml: "", file: "c.yaml") == SessionSettings())
        #expect(try SessionSettings.parse(yaml: "daemon: {}\n", file: "c.yaml").notifications.transfers == false)
        let settings = try SessionSettings.parse(yaml: """
            session:
              notifications: {lowPowerMode: false, battery: true, thermal: false, cpuMonitor: true, transfers: true}
              lowPowerBrightnessPercent: 40
            """, file: "c.yaml")
        #expect(settings.lowPowerBrightnessPercent == 40)
        #expect(!settings.notifications.lowPowerMode && !settings.notifications.thermal && settings.notifications.transfers)
        #expect(try SessionSettings.parse(yaml: "session:\n  lowPowerBrightnessPercent: null\n", file: "c.yaml").lowPowerBrightnessPercent == nil)
    }

    @Test(arguments: [
        ("session:\n  lowPowerBrightnessPercent: 0\n", "c.yaml:2:30: session.lowPowerBrightnessPercent: expected a number from 1 to 100, found \"0\""),
        ("session:\n  lowPowerBrightnessPercent: 40.5\n", "c.yaml:2:30: session.lowPowerBrightnessPercent: expected a whole percentage from 1 to 100"),
        ("session:\n  notifications: {sound: true}\n", "c.yaml:2:19: session.notifications.sound: unknown key (expected lowPowerMode, battery, thermal, cpuMonitor, transfers, sleep)"),
        ("session:\n  notifications:\n    battery: maybe\n", "c.yaml:3:14: session.notifications.battery: expected true or false, found \"maybe\""),
        ("session:\n  animations: false\n", "c.yaml:2:3: session.animations: unknown key (expected notifications, lowPowerBrightnessPercent)"),
    ])
    func errorsNameFileLineColumnAndKey(yaml: String, message: String) {
        do {
            _ = try SessionSettings.parse(yaml: yaml, file: "c.yaml")
            Issue.record("accepted \(yaml)")
        } catch {
            #expect(error.description == message)
        }
    }
}
