import Foundation
import JouleHardware
import JouleEnergy
import JouleHistory
import JouleTesting
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `joule history` on the generated laptop day (hw-fixtures/history/laptop-day, from
/// scripts/make-history-fixture.py) against its expected outputs, its argument errors, and
/// through a running `joule daemon` (GetHistory on a private bus).
@Suite struct HistoryCLITests {
    static let fixture = "hw-fixtures/history/laptop-day"
    static let day = ["--state-dir", fixture, "--since", "2026-03-10T00:00Z", "--until", "2026-03-11T00:00Z"]

    /// joule in the package root (the fixture path is relative, as the expected JSON names it), in UTC.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CLIHarness.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent"
        for (key, value) in extra { environment[key] = value }
        return try await DaemonClientCLITests.run(["history"] + arguments, environment: environment, directory: CLIHarness.packageRoot)
    }

    static func expected(_ path: String) throws -> String {
        try String(contentsOf: CLIHarness.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func theDayAsJSONIsTheExpectedOne() async throws {
        let result = try await Self.run(Self.day + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Self.expected("\(Self.fixture)/expected-history.json")))
        // What the generator put in the day, read back through joule.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let samples = try #require(object["samples"] as? [[String: Any]])
        let lowPower = samples.first { $0["trigger"] as? String == "lowPowerMode" }
        #expect(lowPower?["lowPowerModeReason"] as? String == "battery-low")
        #expect((lowPower?["percentage"] as? Double ?? 100) <= 20)
        #expect(samples.contains { $0["thermalState"] as? String == "serious" })
        #expect(samples.contains { ($0["temperatures"] as? [String: Any])?["thermal_zone2"] is NSNull })
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.map { $0["subtype"] as? String } == ["CPU_FATAL", "completed"])
    }

    @Test func theDaySummaryIsTheExpectedOne() async throws {
        let result = try await Self.run(Self.day)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Self.expected("\(Self.fixture)/expected-summary.txt")))
    }

    /// The README's picture is the fixture's day: rendering it again must give the same file.
    @Test func theDayAsSVGIsTheREADMEPicture() async throws {
        let text = try await Self.written("--svg")
        #expect(text == (try Self.expected("docs/history.svg")), "regenerate docs/history.svg (README)")
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    /// The file the day's `--svg` or `--html` writes.
    static func written(_ option: String) async throws -> String {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("day")
        let result = try await run(day + [option, file.path])
        #expect(result.status == 0, "\(result.stderr)")
        return try String(contentsOf: file, encoding: .utf8)
    }

    @Test func theDayAsAPageIsSelfContained() async throws {
        let text = try await Self.written("--html")
        #expect(text.hasPrefix("<!DOCTYPE html>"))
        #expect(!text.contains("<script"))
        #expect(!text.contains("<link"))
        #expect(text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.contains("<th>Low Power Mode</th><td>on for 5 h 13 min (auto 4 h 43 min, manual 30 min)</td>"))
        #expect(text.contains("<td>transfer completed: debian-12.9.0-amd64-netinst.iso</td><td>658.5 MB</td>"))
        let parser = XMLParser(data: Data(text.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    @Test func badArgumentsAndMissingHistory() async throws {
        var result = try await Self.run(["--since", "yesterday"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("\"yesterday\" is not a time"))
        result = try await Self.run(["--svg", "/tmp/a.svg", "--html", "/tmp/a.html"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("give --svg or --html, not both"))
        result = try await Self.run(["--since", "2026-03-11", "--until", "2026-03-10"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is not before"))
        let empty = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: empty) }
        // A directory the user named without a history is their input; their own is not.
        result = try await Self.run(["--state-dir", empty.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no history at \(empty.path)/history.db"))
        // Without --state-dir and without a daemon: the caller's own state directory.
        result = try await Self.run([], environment: ["JOULE_STATE_DIR": empty.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no history at \(empty.path)/history.db"))
        let fixture = CLIHarness.packageRoot.appendingPathComponent(Self.fixture).path
        result = try await Self.run(["--json"], environment: ["JOULE_STATE_DIR": fixture])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"source\":\"file\""))
        // The fixture is an older joule's state directory: no history.db, the history in transfers.db.
        #expect(result.stdout.contains("\"database\":\"\(fixture)/transfers.db\""))
    }

    @Test func throughTheDaemon() async throws {
        try DaemonClientCLITests.requireDaemon()
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let result = try await Self.run(["--json", "--since", "1h"], environment: daemon.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["source"] as? String == "daemon")
        #expect(object["database"] as? String == daemon.stateDirectory + "/history.db")
        let first = try #require((object["samples"] as? [[String: Any]])?.first)
        #expect(first["trigger"] as? String == "start")
        #expect(first["percentage"] as? Double == 14)  // the XPS fixture: 14 %, discharging
        #expect(first["chargeState"] as? String == "discharging")
        #expect(first["lowPowerMode"] as? Bool == true)
        #expect(first["powerW"] is NSNull)  // no energy meter injected
        // The bus refuses a reversed range.
        let client = try await daemon.client()
        await #expect(throws: BusError.self) {
            _ = try await daemon.call("GetHistory", [.double(10), .double(5)], on: client)
        }
        await client.close()
    }

    /// Issue 32: a new daemon asked for 30 days (five week-long calls, four before its first row)
    /// answers from its first row, not with 30 days of "no data".
    @Test func aNewDaemonsHistoryStartsAtItsFirstRow() async throws {
        try DaemonClientCLITests.requireDaemon()
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let result = try await Self.run(["--json", "--since", "30d"], environment: daemon.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let timeline = try HistoryTimeline(json: result.stdout)
        let first = try #require(timeline.samples.first)
        #expect(first.trigger == .start)
        #expect(timeline.since == first.timestamp)
    }

    /// A long range comes from the daemon a week per call; rows on the seams come once.
    @Test func aLongRangeComesWeekByWeek() async throws {
        try DaemonClientCLITests.requireDaemon()
        let daemon = try await DaemonHarness()
        let start = ((Date().timeIntervalSince1970 - 25 * 86_400) / 3_600).rounded(.down) * 3_600
        let state = StateDirectory(path: daemon.stateDirectory)
        try state.create()
        let rows = (0...(21 * 24)).map { hour in
            HistorySample(
                timestamp: start + Double(hour) * 3_600, trigger: .minute, percentage: Double(hour % 100), chargeState: .discharging,
                energyRateW: nil, powerW: nil, powerSource: nil, lineOnline: false, lowPowerMode: false, lowPowerModeSource: .auto,
                lowPowerModeReason: nil, thermalState: .nominal, temperatures: [])
        }
        // Sleeps (issue 36): one across the first seam, which both windows send, and one inside a week.
        let sleeps = [
            SleepRecord(
                start: start + 7 * 86_400 - 600, end: start + 7 * 86_400 + 600, energyBeforeWh: 40, energyAfterWh: 39.5,
                drainPercentPerHour: 3, drainW: 1.5, wakeReason: "ACPI LID0", mode: "s2idle"),
            SleepRecord(
                start: start + 10 * 86_400, end: start + 10 * 86_400 + 3_600, energyBeforeWh: nil, energyAfterWh: nil,
                drainPercentPerHour: nil, drainW: nil, wakeReason: nil, mode: nil),
        ]
        try HistoryStore(stateDirectory: state).append(rows, sleeps: sleeps)
        try await daemon.start()
        defer { daemon.end() }
        let until = start + 21 * 86_400
        let result = try await Self.run(
            ["--json", "--since", String(Int(start)), "--until", String(Int(until))], environment: daemon.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let timeline = try HistoryTimeline(json: result.stdout)
        #expect(timeline.source == .daemon)
        #expect(timeline.since == start)
        #expect(timeline.until == until)
        #expect(timeline.samples.map(\.timestamp) == rows.map(\.timestamp))
        #expect(timeline.sleeps == sleeps)
    }
}
