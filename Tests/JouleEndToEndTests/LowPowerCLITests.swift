import Foundation
import Testing

/// `joule lowpower on|off|auto` persists an override that `joule status` applies.
@Suite struct LowPowerCLITests {
    static let lowBattery = CLIHarness.fixturesDirectory.appendingPathComponent("dell-xps-13-low-battery-discharging").path
    static let onAC = CLIHarness.fixturesDirectory.appendingPathComponent("dell-latitude-7490-full-on-ac").path

    static func lowPowerMode(root: String, env: [String: String]) async throws -> Bool? {
        let result = try await CLIHarness.run(["status", "--json", "--root", root], environment: env)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["lowPowerMode"] as? Bool
    }

    @Test func overrideIsStoredAndApplied() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-lp-\(UUID().uuidString)/nested")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let env = ["JOULE_STATE_DIR": dir.path]

        // No state file yet: auto, so on at 14 % discharging and off on AC.
        #expect(try await Self.lowPowerMode(root: Self.lowBattery, env: env) == true)
        #expect(try await Self.lowPowerMode(root: Self.onAC, env: env) == false)

        var result = try await CLIHarness.run(["lowpower", "off"], environment: env)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(try String(contentsOf: dir.appendingPathComponent("lowpower"), encoding: .utf8) == "off\n")
        #expect(try await Self.lowPowerMode(root: Self.lowBattery, env: env) == false)

        result = try await CLIHarness.run(["lowpower", "on"], environment: env)
        #expect(result.status == 0)
        #expect(try await Self.lowPowerMode(root: Self.onAC, env: env) == true)
        #expect(try await CLIHarness.run(["lowpower"], environment: env).stdout == "on\n")

        result = try await CLIHarness.run(["lowpower", "auto"], environment: env)
        #expect(result.status == 0)
        #expect(try await Self.lowPowerMode(root: Self.onAC, env: env) == false)
        #expect(try await Self.lowPowerMode(root: Self.lowBattery, env: env) == true)
    }

    @Test func unreadableStateMeansAuto() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-lp-\(UUID().uuidString)")
        // A directory where the state file should be: reading it fails (EISDIR).
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("lowpower"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let env = ["JOULE_STATE_DIR": dir.path]
        #expect(try await Self.lowPowerMode(root: Self.lowBattery, env: env) == true)
        #expect(try await Self.lowPowerMode(root: Self.onAC, env: env) == false)
        // Storing over it fails with a message, not a crash.
        let result = try await CLIHarness.run(["lowpower", "on"], environment: env)
        #expect(result.status == 1)
        #expect(result.stderr.contains(dir.path))
    }

    @Test func garbageStateMeansAuto() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-lp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data([0xFF, 0x00, 0x41]).write(to: dir.appendingPathComponent("lowpower"))
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try await Self.lowPowerMode(root: Self.onAC, env: ["JOULE_STATE_DIR": dir.path]) == false)
    }

    @Test func invalidModeIsAUsageError() async throws {
        let result = try await CLIHarness.run(["lowpower", "maybe"], environment: ["JOULE_STATE_DIR": "/nonexistent"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("maybe"))
    }

    /// Issue 32: without the daemon a choice is only saved, and joule says so and how to start it.
    @Test func aChoiceWithoutTheDaemonSaysNothingIsEnacted() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-lp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let env = [
            "JOULE_STATE_DIR": dir.path, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus",
        ]
        let result = try await CLIHarness.run(["lowpower", "on"], environment: env)
        #expect(result.status == 0)
        #expect(result.stdout == "Low Power Mode: on (saved to \(dir.path)/lowpower)\n")
        #expect(result.stderr.hasPrefix("joule: joule daemon is not running, so nothing is enacted"), "\(result.stderr)")
        #expect(result.stderr.contains("systemctl start joule"))
    }
}
