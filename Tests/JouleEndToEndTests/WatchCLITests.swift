import Foundation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule watch` on fixture trees changed on disk, and on libudev under umockdev with uevents.
@Suite struct WatchCLITests {
    static let thinkpad = "thinkpad-t480-two-batteries-discharging"

    static func object(_ line: String?) throws -> [String: Any] {
        let line = try #require(line, "no line from joule watch")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
    }

    @Test func reactsToAFixtureTreeChangingOnDisk() async throws {
        let root = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try StatusCLITests.cleanState()
        let watch = try CLIProcess(["watch", "--root", root, "--json", "--interval", "0.2"], environment: state.env)

        let snapshot = try await Self.object(watch.nextLine())
        #expect(snapshot["event"] as? String == "snapshot")
        #expect(snapshot["lowPowerMode"] as? Bool == false)
        #expect((snapshot["batteries"] as? [Any])?.count == 2)

        // Both batteries drop to 10 %: the composite discharges below 20 %.
        let supplies = root + "/sys/class/power_supply/"
        for battery in ["BAT0", "BAT1"] {
            let full = try #require(Int(try String(contentsOfFile: supplies + battery + "/energy_full", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            try FixtureCopy.write(String(full / 10), to: supplies + battery + "/energy_now")
            try FixtureCopy.write("10", to: supplies + battery + "/capacity")
        }
        var events: [[String: Any]] = []
        while !events.contains(where: { $0["event"] as? String == "powerStateDidChange" }) {
            events.append(try await Self.object(watch.nextLine()))
        }
        let power = try #require(events.first { $0["event"] as? String == "powerStateDidChange" })
        #expect(power["lowPowerMode"] as? Bool == true)
        #expect(power["reason"] as? String == "battery-low")
        #expect(events.contains { $0["event"] as? String == "warningLevelChanged" && $0["warningLevel"] as? String == "low" })
        #expect(events.allSatisfy { $0["timestamp"] is Double })

        // acpitz has a critical trip at 128 °C: 124 °C is critical (within 5 °C of it). A poll
        // that fell between the battery writes above may still report the second battery first.
        try FixtureCopy.write("124000", to: root + "/sys/class/thermal/thermal_zone0/temp")
        var thermal = try await Self.object(watch.nextLine())
        while thermal["event"] as? String == "batteryChanged" { thermal = try await Self.object(watch.nextLine()) }
        #expect(thermal["event"] as? String == "thermalStateDidChange")
        #expect(thermal["state"] as? String == "critical")
        #expect(thermal["previous"] as? String == "nominal")
        #expect(thermal["cause"] as? String == "thermal_zone0")

        // Nothing changes any more: ten more polls produce no line.
        #expect(await watch.nextLine(timeout: 2) == nil)
        #expect(await watch.stop(SIGINT) == 0)
    }

    @Test func noticesTheOverrideChangingWhileItRuns() async throws {
        let root = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try StatusCLITests.cleanState()
        let watch = try CLIProcess(["watch", "--root", root, "--json", "--interval", "0.2"], environment: state.env)
        #expect(try await Self.object(watch.nextLine())["lowPowerMode"] as? Bool == false)
        #expect(try await CLIHarness.run(["lowpower", "on"], environment: state.env).status == 0)
        let on = try await Self.object(watch.nextLine())
        #expect(on["event"] as? String == "powerStateDidChange")
        #expect(on["lowPowerMode"] as? Bool == true)
        #expect(on["reason"] as? String == "manual-on")
        #expect(try await CLIHarness.run(["lowpower", "auto"], environment: state.env).status == 0)
        let cleared = try await Self.object(watch.nextLine())
        #expect(cleared["lowPowerMode"] as? Bool == false)
        #expect(cleared["reason"] as? String == "override-cleared")
        #expect(await watch.stop(SIGINT) == 0)
    }

    @Test func thresholdsAreConfigurable() async throws {
        // The composite of this tree is at 52.5 %: below a 60 % threshold, so on from the start.
        let state = try StatusCLITests.cleanState()
        let watch = try CLIProcess(
            ["watch", "--root", StatusCLITests.fixture(Self.thinkpad), "--json", "--interval", "0.2",
             "--low-power-at", "60", "--low-power-off-at", "90", "--warning-levels", "55,10,5"],
            environment: state.env)
        let snapshot = try await Self.object(watch.nextLine())
        #expect(snapshot["lowPowerMode"] as? Bool == true)
        #expect(await watch.stop(SIGINT) == 0)
        let bad = try await CLIHarness.run(["watch", "--warning-levels", "5,20,2"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--warning-levels"))
        #expect(try await CLIHarness.run(["watch", "--low-power-at", "90", "--low-power-off-at", "80"]).status == 2)
    }

    @Test func execRunsTheHookWithEventFields() async throws {
        let root = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try StatusCLITests.cleanState()
        let log = root + "/hook.log"
        let watch = try CLIProcess(
            ["watch", "--root", root, "--json", "--interval", "0.2",
             "--exec", "echo \"$JOULE_EVENT $JOULE_STATE $JOULE_PREVIOUS $JOULE_THERMAL_STATE $JOULE_LOW_POWER\" >> \(log)"],
            environment: state.env)
        _ = await watch.nextLine()
        try FixtureCopy.write("124000", to: root + "/sys/class/thermal/thermal_zone0/temp")
        _ = try await Self.object(watch.nextLine())
        #expect(await watch.stop(SIGTERM) == 0)
        // The hook queue is drained before joule exits.
        let hooks = try String(contentsOfFile: log, encoding: .utf8)
        #expect(hooks == "thermalStateDidChange critical nominal critical 0\n")
    }

    @Test func udevMonitorReactsToAUeventWithoutWaitingForThePoll() async throws {
        let testbed = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: testbed) }
        let state = try StatusCLITests.cleanState()
        var env = state.env
        env["UMOCKDEV_DIR"] = testbed
        env["LD_PRELOAD"] = "libumockdev-preload.so.0"
        // An hour between polls: only the uevent can explain a prompt reaction.
        let watch = try CLIProcess(["watch", "--json", "--interval", "3600"], environment: env)
        let snapshot = try await Self.object(watch.nextLine())
        #expect(snapshot["event"] as? String == "snapshot")

        // umockdev creates event<fd> once libudev's monitor binds its socket.
        let bound = await eventually {
            ((try? FileManager.default.contentsOfDirectory(atPath: testbed)) ?? []).contains { $0.hasPrefix("event") }
        }
        try #require(bound, "the udev monitor never bound its socket")

        let battery = testbed + "/sys/class/power_supply/BAT1"
        try FixtureCopy.write("Charging", to: battery + "/status")
        let devpath = try FileManager.default.destinationOfSymbolicLink(atPath: battery)
            .replacingOccurrences(of: "../../devices", with: "/devices")
        let reached = try UmockdevUevent.send(testbed: testbed, action: "change", devpath: devpath, subsystem: "power_supply")
        #expect(reached >= 1)

        let event = try await Self.object(watch.nextLine())
        #expect(event["event"] as? String == "batteryChanged")
        #expect(event["name"] as? String == "BAT1")
        #expect(event["state"] as? String == "charging")
        #expect(await watch.stop(SIGINT) == 0)
    }
}
