import Foundation
import Testing

/// `joule beacons` end to end on the generated captures.
@Suite struct BeaconsCLITests {
    static let dir = CLIHarness.fixturesDirectory.appendingPathComponent("bluetooth")
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let regions = ["--region", "office=\(uuid)", "desk=\(uuid):1:2"]

    static func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    static func expected(_ name: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(arguments: [
        "all-kinds-h4", "all-kinds-raw1001", "all-kinds-monitor2001", "multi-report-h4", "extended-h4", "malformed-h4",
        "truncated-record-h4", "truncated-header-h4",
    ])
    func scanJSONReplay(name: String) async throws {
        let result = try await CLIHarness.run(["beacons", "scan", "--json", "--replay", Self.path(name + ".btsnoop")])
        #expect(result.status == 0)
        #expect(result.stdout == (try Self.expected(name + ".expected.ndjson")))
        if name.hasPrefix("truncated") { #expect(result.stderr.contains("replay ends here")) }
        if name == "malformed-h4" { #expect(result.stderr.contains("warning:")) }
    }

    @Test func scanJSONThroughTheSessionPathMatchesTooWhenPaced() async throws {
        // --realtime paces the replay event by event and flushes after each line.
        let result = try await CLIHarness.run(["beacons", "scan", "--json", "--realtime", "--replay", Self.path("multi-report-h4.btsnoop")])
        #expect(result.status == 0)
        #expect(result.stdout == (try Self.expected("multi-report-h4.expected.ndjson")))
    }

    /// Issue 32: text shows 24-hour local time (JSON keeps UTC): one hour east of UTC, the same
    /// capture's first line reads an hour later.
    @Test func scanTableTimesAreLocal() async throws {
        func firstLine(_ zone: String) async throws -> String {
            let result = try await CLIHarness.run(
                ["beacons", "scan", "--replay", Self.path("all-kinds-h4.btsnoop")], environment: ["TZ": zone, "LC_ALL": "en_US.UTF-8"])
            #expect(result.status == 0)
            return result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        }
        try #require(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Etc/GMT-1"), "tzdata is not installed")
        let utc = try await firstLine("Etc/UTC"), east = try await firstLine("Etc/GMT-1")
        let pattern = #/^(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?: 11 beacon\(s\)$/#
        let a = try #require(utc.firstMatch(of: pattern), "\(utc)"), b = try #require(east.firstMatch(of: pattern), "\(east)")
        #expect((Int(a.2)! + 1) % 24 == Int(b.2)!, "\(utc) / \(east)")
        #expect(a.3 == b.3 && a.4 == b.4)
    }

    @Test func scanTableReplay() async throws {
        let result = try await CLIHarness.run(["beacons", "scan", "--replay", Self.path("all-kinds-h4.btsnoop")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("11 beacon(s)"))
        #expect(result.stdout.contains("https://www.example.com/beacon"))
    }

    @Test func monitorReplay() async throws {
        let result = try await CLIHarness.run(["beacons", "monitor", "--json", "--replay", Self.path("region-h4.btsnoop")] + Self.regions)
        #expect(result.status == 0)
        #expect(result.stdout == (try Self.expected("region-h4.monitor.expected.ndjson")))
    }

    /// Eddystone-UID regions (namespace, and instance when given), on the capture's
    /// Eddystone-UID beacon: enter lines and hooks carry the namespace and instance, ranging
    /// reports the beacon by them.
    @Test func eddystoneRegionsEnterAndRange() async throws {
        let namespace = "edd1ebeac04e5defa017"
        let instance = "0badc0ffee01"
        let regions = ["--region", "door=\(namespace):\(instance)", "--region", "fleet=0x\(namespace.uppercased())"]
        let monitor = try await CLIHarness.run(
            ["beacons", "monitor", "--json", "--replay", Self.path("all-kinds-h4.btsnoop"), "--exec", "echo \"hook $JOULE_REGION $JOULE_NAMESPACE [$JOULE_INSTANCE]\" >&2"]
                + regions)
        #expect(monitor.status == 0)
        let lines = monitor.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "{\"timestamp\":1700000000.3,\"event\":\"enter\",\"region\":\"door\",\"namespace\":\"\(namespace)\",\"instance\":\"\(instance)\"}")
        #expect(lines.last == "{\"timestamp\":1700000000.3,\"event\":\"enter\",\"region\":\"fleet\",\"namespace\":\"\(namespace)\",\"instance\":null}")
        #expect(monitor.stderr.contains("hook door \(namespace) [\(instance)]"))
        #expect(monitor.stderr.contains("hook fleet \(namespace) []"))

        let range = try await CLIHarness.run(["beacons", "range", "--json", "--interval", "1", "--replay", Self.path("all-kinds-h4.btsnoop")] + regions)
        #expect(range.status == 0)
        let rows = range.stdout.split(separator: "\n").filter { $0.contains("\"region\":\"door\"") }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0.contains("\"namespace\":\"\(namespace)\",\"instance\":\"\(instance)\",\"rssi\":") })
        #expect(!range.stdout.contains("\"uuid\""), "no proximity beacon is in these regions")
    }

    @Test func monitorExitTimeoutAndExec() async throws {
        let result = try await CLIHarness.run([
            "beacons", "monitor", "--replay", Self.path("region-h4.btsnoop"), "--exit-timeout", "20",
            "--exec", "echo \"hook $JOULE_EVENT $JOULE_REGION $JOULE_TIMESTAMP [$JOULE_MAJOR]\"", "--region", "desk=\(Self.uuid):1:2",
        ])
        #expect(result.status == 0)
        let hooks = result.stdout.split(separator: "\n").filter { $0.hasPrefix("hook") }
        // Seen 0–5 s and 30–32 s: with 20 s the gap (5→30 s) is an exit at 25 s; the capture ends at 45 s < 52 s.
        #expect(hooks == ["hook enter desk 1700000000 [1]", "hook exit desk 1700000025 [1]", "hook enter desk 1700000030 [1]"])
    }

    @Test func rangeReplay() async throws {
        let result = try await CLIHarness.run(["beacons", "range", "--json", "--interval", "5", "--replay", Self.path("region-h4.btsnoop")] + Self.regions)
        #expect(result.status == 0)
        #expect(result.stdout == (try Self.expected("region-h4.range.expected.ndjson")))
    }

    @Test func rangeOnceReplay() async throws {
        let result = try await CLIHarness.run(["beacons", "range", "--once", "--json", "--replay", Self.path("region-h4.btsnoop")] + Self.regions)
        #expect(result.status == 0)
        #expect(result.stdout == (try Self.expected("region-h4.range-once.expected.ndjson")))
    }

    @Test func rangeOnceWithoutBeacons() async throws {
        let result = try await CLIHarness.run([
            "beacons", "range", "--once", "--timeout", "2", "--replay", Self.path("region-h4.btsnoop"), "--region",
            "F7826DA6-4FA2-4E98-8024-BC5B71E0893F",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no beacon of the regions heard within 2"))
    }

    @Test func recordConvertsCapturesToH4() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("joule-record-\(UInt32.random(in: 0...UInt32.max)).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let record = try await CLIHarness.run(["beacons", "record", "--replay", Self.path("all-kinds-monitor2001.btsnoop"), "--out", out])
        #expect(record.status == 0)
        let data = try #require(FileManager.default.contents(atPath: out))
        #expect(Array(data.prefix(16)) == Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA])
        let scan = try await CLIHarness.run(["beacons", "scan", "--json", "--replay", out])
        #expect(scan.stdout == (try Self.expected("all-kinds-monitor2001.expected.ndjson")))
    }

    @Test func missingCapture() async throws {
        for sub in [["scan", "--json"], ["scan"], ["monitor", "--region", Self.uuid], ["range", "--region", Self.uuid]] {
            let result = try await CLIHarness.run(["beacons"] + sub + ["--replay", "/nonexistent/x.btsnoop"])
            // The capture is the user's input (issue 32's one rule).
            #expect(result.status == 2)
            #expect(result.stderr.contains("/nonexistent/x.btsnoop"))
            #expect(result.stderr.contains("No such file or directory"))
        }
    }

    @Test(arguments: ["bad-magic", "unknown-datalink", "short-header"])
    func unreadableCaptures(name: String) async throws {
        let result = try await CLIHarness.run(["beacons", "scan", "--json", "--replay", Self.path(name + ".btsnoop")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("btsnoop"))
        #expect(result.stdout.isEmpty)
    }

    @Test func badArguments() async throws {
        let badRegion = try await CLIHarness.run(["beacons", "monitor", "--region", "office=not-a-uuid"])
        #expect(badRegion.status == 2)
        #expect(badRegion.stderr.contains("is neither a UUID"))
        let noRegion = try await CLIHarness.run(["beacons", "range"])
        #expect(noRegion.status == 2)
        #expect(noRegion.stderr.contains("--region"))
        let badMajor = try await CLIHarness.run(["beacons", "range", "--region", "x=\(Self.uuid):70000"])
        #expect(badMajor.status == 2)
        #expect(badMajor.stderr.contains("major"))
        let badDuty = try await CLIHarness.run(["beacons", "scan", "--duty", "300/30"])
        #expect(badDuty.status == 2)
        #expect(badDuty.stderr.contains("window cannot exceed the interval"))
        let realtime = try await CLIHarness.run(["beacons", "scan", "--realtime"])
        #expect(realtime.status == 2)
    }

    @Test func liveScanExplainsMissingBluetooth() async throws {
        // Only meaningful on machines without Bluetooth, like the CI containers.
        guard !FileManager.default.fileExists(atPath: "/sys/class/bluetooth") else { return }
        let result = try await CLIHarness.run(["beacons", "scan"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no Bluetooth support") || result.stderr.contains("no Bluetooth LE adapter"))
        // A file the user names in a missing directory is their input, checked first.
        let record = try await CLIHarness.run(["beacons", "record", "--out", "/nonexistent-dir/x.btsnoop"])
        #expect(record.status == 2)
    }
}
