import Foundation
import JouleHardware
import JouleTesting
import Testing

/// `joule battery`, `battery limit`, `battery full-once` (issue 36): directly on a writable
/// copy of the two-battery ThinkPad (75-80 in firmware), and through joule daemon on a private
/// bus with dbusmock's polkitd and logind.
@Suite struct BatteryCLITests {
    static let fixture = "thinkpad-t480-two-batteries-discharging"
    static let noDaemon = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]

    static func threshold(_ root: String, _ battery: String, _ name: String) throws -> String {
        try String(contentsOfFile: "\(root)/sys/class/power_supply/\(battery)/charge_control_\(name)_threshold", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Without a daemon, `limit` writes each battery's thresholds once (start before end when
    /// the new end is below the old start), says nothing will apply it again, and `battery
    /// --json` reads it back.
    @Test func limitWritesTheFixtureDirectly() async throws {
        let dir = try await BadInputRun.copyFixture(Self.fixture)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLIHarness.run(["battery", "limit", "60-70", "--root", dir.path], environment: Self.noDaemon)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("BAT0: charge limit 60-70 (firmware): wrote charge_control_start_threshold=60, charge_control_end_threshold=70"), "\(result.stdout)")
        #expect(result.stderr.contains("not applied again after a resume or an EC reset"), "\(result.stderr)")
        for battery in ["BAT0", "BAT1"] {
            #expect(try Self.threshold(dir.path, battery, "start") == "60")
            #expect(try Self.threshold(dir.path, battery, "end") == "70")
        }
        let shown = try await CLIHarness.run(["battery", "--json", "--root", dir.path], environment: Self.noDaemon)
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try Self.json(shown.stdout)
        #expect(object["daemon"] is NSNull)
        let batteries = try #require(object["batteries"] as? [[String: Any]])
        #expect(batteries.map { $0["name"] as? String } == ["BAT0", "BAT1"])
        let limit = try #require(batteries.first?["chargeLimit"] as? [String: Any])
        #expect(limit["start"] as? Int == 60 && limit["end"] as? Int == 70 && limit["source"] as? String == "firmware", "\(limit)")
        let text = try await CLIHarness.run(["battery", "--root", dir.path], environment: Self.noDaemon)
        #expect(text.stdout.contains("BAT0: thresholds 60-70, firmware, charge_behaviour auto; supports start, end, auto, inhibit-charge, force-discharge"), "\(text.stdout)")

        let off = try await CLIHarness.run(["battery", "limit", "off", "--root", dir.path], environment: Self.noDaemon)
        #expect(off.status == 0, "\(off.stderr)")
        #expect(try Self.threshold(dir.path, "BAT0", "start") == "0")
        #expect(try Self.threshold(dir.path, "BAT0", "end") == "100")
    }

    /// A bad limit exits 2 naming the rule, and nothing is written.
    @Test(arguments: [
        ("80-75", "charge limit start (80) must be below its end (75)"),
        ("101", "charge limit end must be 1-100 %, not 101"),
        ("eighty", "charge limit must be END, START-END or off"),
    ])
    func aBadLimitExits2AndWritesNothing(_ limit: String, _ message: String) async throws {
        let dir = try await BadInputRun.copyFixture(Self.fixture)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLIHarness.run(["battery", "limit", limit, "--root", dir.path], environment: Self.noDaemon)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try Self.threshold(dir.path, "BAT0", "start") == "75")
        #expect(try Self.threshold(dir.path, "BAT0", "end") == "80")
    }

    @Test func fullOnceWithoutTheDaemonExits1() async throws {
        let result = try await CLIHarness.run(["battery", "full-once"], environment: Self.noDaemon)
        #expect(result.status == 1)
        #expect(result.stderr.contains("full-once needs joule daemon"), "\(result.stderr)")
    }

    // MARK: Through the daemon

    /// The config's limit is applied at start and published; polkit refuses SetChargeLimit
    /// (nothing written) until the action is allowed; then `battery limit`, `battery`,
    /// `full-once` and a bad pair go through the daemon; the limit stays when it stops.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func theDaemonKeepsTheLimitBehindPolkit() async throws {
        let daemon = try await DaemonHarness(fixture: Self.fixture)
        let root = daemon.knobs.path
        try daemon.writeConfig("battery:\n  chargeLimit: {start: 60, end: 70}\n")
        let polkit = try await DBusMock(.polkitd, address: daemon.bus.address)
        defer { polkit.stop() }
        try await daemon.start()
        #expect(try Self.threshold(root, "BAT0", "start") == "60")
        #expect(try Self.threshold(root, "BAT1", "end") == "70")
        #expect(daemon.log.contains("BAT0: charge limit 60-70 (start): wrote"), "\(daemon.log)")
        let client = try await daemon.client()
        let held = try await daemon.property("ChargeLimit", on: client)
        #expect(held == .variantDictionary([
            ("start", .uint32(60)), ("end", .uint32(70)), ("source", .string("firmware")), ("holds", .bool(true)), ("fullOnce", .bool(false)),
        ]), "\(held)")

        do {
            _ = try await daemon.call("SetChargeLimit", [.uint32(50), .uint32(90)], on: client)
            Issue.record("SetChargeLimit was allowed without polkit's consent")
        } catch {
            #expect((error as? BusError)?.remoteName == "org.freedesktop.DBus.Error.AccessDenied", "\(error)")
            #expect("\(error)".contains("org.joule.Energy1.set-charge-limit"), "\(error)")
        }
        let refused = await DaemonHarnessRun.run(daemon, ["battery", "limit", "50-90"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("not authorised to change the charge limit"), "\(refused.stderr)")
        #expect(try Self.threshold(root, "BAT0", "end") == "70", "a refused call writes nothing")
        #expect(daemon.log.contains("SetChargeLimit") == false)

        try await polkit.setAllowed(["org.joule.Energy1.set-charge-limit"])
        let changes = try await client.signals(matching:
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='/org/joule/Energy1'")
        let set = await DaemonHarnessRun.run(daemon, ["battery", "limit", "50-90"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("charge limit 50-90 (kept by joule daemon)"))
        #expect(try Self.threshold(root, "BAT0", "start") == "50")
        #expect(try Self.threshold(root, "BAT0", "end") == "90")
        let shown = await DaemonHarnessRun.run(daemon, ["battery", "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try Self.json(shown.stdout)
        let kept = try #require(object["daemon"] as? [String: Any])
        #expect(kept["start"] as? Int == 50 && kept["end"] as? Int == 90 && kept["holds"] as? Bool == true, "\(kept)")
        // PropertiesChanged carried the new ChargeLimit.
        var announced: BusValue?
        for await change in changes {
            guard change.arguments.count >= 2, let entries = change.arguments[1].stringKeyedEntries,
                  let value = entries.first(where: { $0.0 == "ChargeLimit" })?.1 else { continue }
            announced = value
            break
        }
        #expect(announced?.stringKeyedEntries?.contains { $0.0 == "end" && $0.1 == .uint32(90) } == true, "\(String(describing: announced))")

        do {
            _ = try await daemon.call("SetChargeLimit", [.uint32(80), .uint32(75)], on: client)
            Issue.record("SetChargeLimit(80, 75) was accepted")
        } catch {
            #expect((error as? BusError)?.remoteName == "org.freedesktop.DBus.Error.InvalidArgs", "\(error)")
            #expect("\(error)".contains("must be below its end"), "\(error)")
        }

        let full = await DaemonHarnessRun.run(daemon, ["battery", "full-once"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(try Self.threshold(root, "BAT0", "end") == "100")
        #expect(try Self.threshold(root, "BAT0", "start") == "0")
        let fullOnce = try #require(try await daemon.property("ChargeLimit", on: client).stringKeyedEntries)
        #expect(fullOnce.contains { $0.0 == "fullOnce" && $0.1 == .bool(true) }, "\(fullOnce)")

        _ = try await daemon.call("SetChargeLimit", [.uint32(0), .uint32(85)], on: client)
        #expect(try Self.threshold(root, "BAT0", "end") == "85")
        await client.close()
        #expect(await daemon.stop() == 0)
        #expect(try Self.threshold(root, "BAT0", "end") == "85", "the limit stays when the daemon stops")
    }

    /// logind's PrepareForSleep(false): thresholds the firmware reset during sleep are
    /// written again.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func aResumeAppliesTheLimitAgain() async throws {
        let daemon = try await DaemonHarness(fixture: Self.fixture)
        let root = daemon.knobs.path
        try daemon.writeConfig("battery:\n  chargeLimit: {start: 60, end: 70}\n")
        let logind = try await DBusMock(.logind, address: daemon.bus.address)
        defer { logind.stop() }
        try await daemon.start()
        #expect(try Self.threshold(root, "BAT0", "end") == "70")
        for name in ["start", "end"] {
            try (name == "start" ? "0" : "100").write(
                toFile: "\(root)/sys/class/power_supply/BAT0/charge_control_\(name)_threshold", atomically: false, encoding: .utf8)
        }
        try await logind.emitSignal(interface: "org.freedesktop.login1.Manager", name: "PrepareForSleep", signature: "b", arguments: [.bool(true)])
        try await logind.emitSignal(interface: "org.freedesktop.login1.Manager", name: "PrepareForSleep", signature: "b", arguments: [.bool(false)])
        try await daemon.waitForLog("BAT0: charge limit 60-70 (resume): wrote")
        #expect(try Self.threshold(root, "BAT0", "start") == "60")
        #expect(try Self.threshold(root, "BAT0", "end") == "70")
        #expect(daemon.log.components(separatedBy: "resumed from sleep").count == 2, "one resume, one re-apply: \(daemon.log)")

        // SIGHUP with another limit in the config applies it; the same limit again writes nothing.
        try daemon.writeConfig("battery:\n  chargeLimit: {start: 55, end: 65}\n")
        kill(try #require(daemon.process).processIdentifier, SIGHUP)
        try await daemon.waitForLog("SIGHUP: reloaded")
        #expect(daemon.log.contains("SIGHUP: charge limit 55-65"), "\(daemon.log)")
        #expect(try Self.threshold(root, "BAT0", "start") == "55")
        #expect(try Self.threshold(root, "BAT0", "end") == "65")
        #expect(await daemon.stop() == 0)
    }
}

extension BatteryCLITests {
    /// Batteries with only `charge_behaviour`: the daemon holds the limit by inhibiting
    /// charging above the end, `status --json` from the daemon says `emulated`, and the
    /// inhibit is released (`auto`) when the daemon stops.
    @Test func anEmulatedLimitIsReportedAndReleasedAtExit() async throws {
        let daemon = try await DaemonHarness(fixture: Self.fixture)
        let root = daemon.knobs.path
        for battery in ["BAT0", "BAT1"] {
            for name in ["start", "end"] {
                let path = URL(fileURLWithPath: "\(root)/sys/class/power_supply/\(battery)/charge_control_\(name)_threshold").resolvingSymlinksInPath()
                try FileManager.default.removeItem(at: path)
            }
        }
        try daemon.writeConfig("battery:\n  chargeLimit: {end: 80}\n")
        try await daemon.start()
        let behaviour = "\(root)/sys/class/power_supply/BAT0/charge_behaviour"
        // BAT0 is at 87 %: above the end, so charging is inhibited; BAT1 (41 %) stays auto.
        #expect(try String(contentsOfFile: behaviour, encoding: .utf8) == "inhibit-charge\n", "\(daemon.log)")
        #expect(daemon.log.contains("BAT0: charge_behaviour inhibit-charge (at 87"), "\(daemon.log)")
        let status = await DaemonHarnessRun.run(daemon, ["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let batteries = try #require(try Self.json(status.stdout)["batteries"] as? [[String: Any]])
        let limits = batteries.compactMap { $0["chargeLimit"] as? [String: Any] }
        #expect(limits.map { $0["source"] as? String } == ["emulated", "emulated"], "\(limits)")
        let client = try await daemon.client()
        let held = try #require(try await daemon.property("ChargeLimit", on: client).stringKeyedEntries)
        #expect(held.contains { $0.0 == "source" && $0.1 == .string("emulated") }, "\(held)")
        #expect(held.contains { $0.0 == "start" } == false, "no start was set")
        await client.close()
        #expect(await daemon.stop() == 0)
        #expect(try String(contentsOfFile: behaviour, encoding: .utf8) == "auto\n", "\(daemon.log)")
        #expect(daemon.log.contains("BAT0: charge_behaviour auto (joule is stopping)"), "\(daemon.log)")
    }
}
