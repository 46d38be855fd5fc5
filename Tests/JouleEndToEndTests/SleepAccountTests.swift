import Foundation
import JouleHardware
import JouleTesting
import Testing

/// The sleep account through joule daemon, with python3-dbusmock's logind on the private bus:
/// the delay lock is taken at start, released at `PrepareForSleep(true)` and taken again at
/// `PrepareForSleep(false)`; the sleep is logged with the wakeup source that moved and the
/// `mem_sleep` mode, counted in the metrics, and the charge limit is applied again.
@Suite struct SleepAccountTests {
    static func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func inhibitors(_ logind: DBusMock) async throws -> [String] {
        let reply = try await logind.call("ListInhibitors", interface: "org.freedesktop.login1.Manager")
        guard case .array(_, let rows)? = reply.first else { return [] }
        return rows.compactMap { row in
            guard case .structure(let fields) = row else { return nil }
            return fields.prefix(4).compactMap(\.stringValue).joined(separator: " ")
        }
    }

    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func aSleepIsAccountedAroundTheDelayLock() async throws {
        let daemon = try await DaemonHarness(fixture: BatteryCLITests.fixture)
        let root = daemon.knobs.path
        try Self.write("s2idle [deep]\n", root + "/sys/power/mem_sleep")
        try Self.write("ACPI LID0\n", root + "/sys/class/wakeup/wakeup0/name")
        try Self.write("3\n", root + "/sys/class/wakeup/wakeup0/event_count")
        try Self.write("1\n", root + "/sys/class/wakeup/wakeup0/wakeup_count")
        try daemon.writeConfig("battery:\n  chargeLimit: {start: 60, end: 70}\n")
        let logind = try await DBusMock(.logind, address: daemon.bus.address)
        defer { logind.stop() }
        try await daemon.start()
        #expect(try await eventually { try await Self.inhibitors(logind) == ["sleep joule note the battery's energy before sleep delay"] })

        try await logind.emitSignal(interface: "org.freedesktop.login1.Manager", name: "PrepareForSleep", signature: "b", arguments: [.bool(true)])
        try await daemon.waitForLog("going to sleep (deep)")
        #expect(try await eventually { try await Self.inhibitors(logind).isEmpty }, "the lock is released after the note")

        // Asleep: the lid's wakeup count moves, and the firmware forgets the thresholds.
        try Self.write("2\n", root + "/sys/class/wakeup/wakeup0/wakeup_count")
        try Self.write("100", root + "/sys/class/power_supply/BAT0/charge_control_end_threshold")
        try await logind.emitSignal(interface: "org.freedesktop.login1.Manager", name: "PrepareForSleep", signature: "b", arguments: [.bool(false)])
        try await daemon.waitForLog("woke by ACPI LID0 (wakeup_count +1)")
        #expect(daemon.log.contains("(deep): "), "\(daemon.log)")
        try await daemon.waitForLog("BAT0: charge limit 60-70 (resume): wrote")
        #expect(try await eventually { try await Self.inhibitors(logind).count == 1 }, "taken again for the next sleep")

        // The history has the sleep, with the keys.
        let client = try await daemon.client()
        let reply = try await daemon.call("GetHistory", [.double(0), .double(Date().timeIntervalSince1970 + 60)], on: client)
        await client.close()
        let history = try #require(try JSONSerialization.jsonObject(with: Data((reply.first?.stringValue ?? "").utf8)) as? [String: Any])
        let sleeps = try #require(history["sleeps"] as? [[String: Any]], "\(history.keys)")
        #expect(sleeps.count == 1)
        let row = try #require(sleeps.first)
        #expect(Set(row.keys) == ["start", "end", "energyBeforeWh", "energyAfterWh", "drainPercentPerHour", "drainW", "wakeReason", "mode", "flagged"], "\(row)")
        #expect(row["mode"] as? String == "deep" && row["wakeReason"] as? String == "ACPI LID0 (wakeup_count +1)", "\(row)")
        #expect(row["flagged"] as? Bool == false, "a moment's sleep is never flagged")

        let metrics = await DaemonHarnessRun.run(daemon, ["export"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
        #expect(metrics.stdout.contains("\njoule_sleeps_total 1\n"), "\(metrics.stdout)")
        #expect(await daemon.stop() == 0)
        #expect(try await eventually { try await Self.inhibitors(logind).isEmpty }, "released when the daemon stops")
    }
}
