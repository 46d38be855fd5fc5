import Foundation
import JouleEnergy
import JouleLocation
import JouleTesting
import Testing

/// `joule location once|watch` end to end on generated `gpspipe -w` recordings: the JSON
/// lines, their times, and the exit codes.
@Suite struct LocationCLITests {
    /// 2024-05-01T12:00:00Z.
    static let t0: Int64 = 1_714_564_800_000_000

    /// TPV lines at `seconds` after t0, `northM` north of the Eiffel Tower, with SKY lines between.
    static func track(_ points: [(seconds: Double, northM: Double, eph: Double?)], mode: Int = 3) -> String {
        var lines = [#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#]
        for point in points {
            let p = Geodesy.offset(latitude: 48.85837, longitude: 2.294481, northM: point.northM, eastM: 0)
            let time = UTCTime.text(t0 + Int64(point.seconds * 1_000_000))
            var line = #"{"class":"TPV","mode":\#(mode),"time":"\#(time)","lat":\#(p.latitude),"lon":\#(p.longitude),"altHAE":40.5,"epv":9.5"#
            if let eph = point.eph { line += #","eph":\#(eph)"# }
            lines.append(line + "}")
            lines.append(#"{"class":"SKY","satellites":[]}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func write(_ text: String, in scratch: ScratchDirectory, name: String = "track.ndjson") throws -> String {
        let path = scratch.path + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func jsonLines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// hw-fixtures/location/walk.ndjson (scripts/make-location-fixture.py): a two-minute walk as
    /// gpspipe -w prints it, with no-fix TPVs first, accuracy improving from 80 m to 4 m and a 2D
    /// fix at 60 s. The expected files were checked by hand against the walk: once with a 3 s
    /// TTFF stops at 18 s (eph 8 ≤ 10); watch at 62 m delivers 15 s (first with eph ≤ 20), 60 s
    /// (45 steps of 1.4 m, the 2D fix: no altitude) and 105 s; deferral by 30 s batches 31 fixes.
    @Test(arguments: [
        ("once", ["--accuracy", "10", "--ttff", "3"]), ("watch", ["--accuracy", "20", "--distance", "62"]),
        ("deferred", ["--accuracy", "20", "--defer-time", "30"]),
    ])
    func walkFixture(name: String, options: [String]) async throws {
        let directory = CLIHarness.fixturesDirectory.appendingPathComponent("location")
        let command = name == "deferred" ? "watch" : name
        let result = try await CLIHarness.run(
            ["location", command, "--json", "--replay", directory.appendingPathComponent("walk.ndjson").path] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = try String(contentsOf: directory.appendingPathComponent("\(name).expected.ndjson"), encoding: .utf8)
        #expect(result.stdout == expected)
    }

    @Test func onceStopsAtTheFirstAccurateFix() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        let path = try Self.write(Self.track([(0, 0, 60), (1, 1, 40), (2, 2, 20), (3, 3, 5)]), in: scratch)
        let result = try await CLIHarness.run(["location", "once", "--json", "--replay", path, "--accuracy", "25"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.first == #"{"event":"receiver","state":"on","time":"2024-05-01T12:00:00Z"}"#)
        #expect(lines.dropFirst().first?.hasPrefix(#"{"event":"location","fix":{"time":"2024-05-01T12:00:02Z","latitude":48.858"#) == true)
        #expect(lines.dropFirst().first?.hasSuffix(#","horizontalAccuracyM":20,"altitudeM":40.5,"verticalAccuracyM":9.5,"speedMps":null,"courseDeg":null,"source":"replay"},"accuracyMet":true}"#) == true, "\(lines)")
        #expect(lines.dropFirst(2).first == #"{"event":"receiver","state":"off","time":"2024-05-01T12:00:02Z"}"#)
        #expect(lines.last == #"{"event":"summary","receiverOnS":2,"spanS":2,"fixes":3}"#)
        // Every fix key, in the documented order.
        let fix = try #require(lines[1].firstRange(of: #""fix":{"#))
        let keys = lines[1][fix.upperBound...].matches(of: #/"(\w+)":/#).map { String($0.1) }
        #expect(Array(keys.prefix(9)) == [
            "time", "latitude", "longitude", "horizontalAccuracyM", "altitudeM", "verticalAccuracyM", "speedMps", "courseDeg", "source",
        ])
    }

    @Test func onceAtTheTimeoutPrintsTheBestFixWithAccuracyNotMet() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        let path = try Self.write(Self.track([(0, 0, 300), (5, 0, 150), (9, 0, 200), (12, 0, 3)]), in: scratch)
        let result = try await CLIHarness.run(["location", "once", "--json", "--source", "replay:" + path, "--timeout", "10"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.jsonLines(result.stdout)
        #expect(events.map { $0["event"] as? String } == ["receiver", "location", "receiver", "summary"])
        #expect(events[1]["accuracyMet"] as? Bool == false)
        #expect((events[1]["fix"] as? [String: Any])?["horizontalAccuracyM"] as? Double == 150)
        #expect(events[2]["time"] as? String == "2024-05-01T12:00:10Z")
        #expect(events[3]["receiverOnS"] as? Double == 10 && events[3]["fixes"] as? Int == 3)
    }

    @Test func onceWithNoFixExitsOneNamingTheSource() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        let path = try Self.write(Self.track([(0, 0, nil), (1, 0, nil)], mode: 1), in: scratch)
        let result = try await CLIHarness.run(["location", "once", "--json", "--replay", path])
        #expect(result.status == 1)
        #expect(result.stderr == "joule location once: no fix from replay:\(path)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func watchWithADistanceFilter() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        // 10 m a second for 30 s; the fix at 12 s is too inaccurate to deliver.
        let points = (0...30).map { (Double($0), Double($0) * 10, $0 == 12 ? 500.0 : 4.0) as (Double, Double, Double?) }
        let path = try Self.write(Self.track(points), in: scratch)
        let result = try await CLIHarness.run(["location", "watch", "--json", "--replay", path, "--distance", "95", "--ttff", "1.5"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.jsonLines(result.stdout)
        let times = events.filter { $0["event"] as? String == "location" }.compactMap { ($0["fix"] as? [String: Any])?["time"] as? String }
        // The first fix at or after the 1.5 s TTFF is 2 s; then every 100 m.
        #expect(times == ["2024-05-01T12:00:02Z", "2024-05-01T12:00:13Z", "2024-05-01T12:00:23Z"])
        #expect(events.first?["state"] as? String == "on" && events.first?["time"] as? String == "2024-05-01T12:00:00Z")
        #expect(result.stdout.hasSuffix(#"{"event":"receiver","state":"off","time":"2024-05-01T12:00:30Z"}"# + "\n"
            + #"{"event":"summary","receiverOnS":30,"spanS":30,"fixes":29}"# + "\n"))
    }

    @Test func watchDefersByTime() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        let path = try Self.write(Self.track((0...10).map { (Double($0), Double($0), 4.0) }), in: scratch)
        let result = try await CLIHarness.run(["location", "watch", "--json", "--replay", path, "--defer-time", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        let batches = try Self.jsonLines(result.stdout).filter { $0["event"] as? String == "deferred" }
        #expect(batches.map { $0["reason"] as? String } == ["time", "time", "stop"])
        #expect(batches.map { ($0["fixes"] as? [Any])?.count } == [5, 5, 1])
    }

    @Test func watchPausesWhileStillAndResumesWhenMoved() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        // 0…20 s walking 10 m/s, standing at 200 m until 400 s, then walking again to 500 s.
        func north(_ t: Int) -> Double {
            if t <= 20 { return Double(t) * 10 }
            if t < 400 { return 200 }
            return 200 + Double(t - 400) * 10
        }
        let points: [(seconds: Double, northM: Double, eph: Double?)] = (0...500).map { (Double($0), north($0), 4.0) }
        let path = try Self.write(Self.track(points), in: scratch)
        let result = try await CLIHarness.run(
            ["location", "watch", "--json", "--replay", path, "--distance", "1000", "--pause-when-stationary", "60", "--probe", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.jsonLines(result.stdout).filter { $0["event"] as? String != "location" }
        let timeline: [String] = events.map { event in
            let words: [String?] = [event["event"] as? String, (event["state"] ?? event["reason"]) as? String, event["time"] as? String]
            return words.compactMap { $0 }.joined(separator: " ")
        }
        // Anchors every 30 m up to 18 s; still from there, so paused at 78 s; probes at 178,
        // 278 and 378 s find it standing; at 478 s it is 780 m on.
        #expect(timeline == [
            "receiver on 2024-05-01T12:00:00Z", "paused stationary 2024-05-01T12:01:18Z", "receiver off 2024-05-01T12:01:18Z",
            "receiver on 2024-05-01T12:02:58Z", "receiver off 2024-05-01T12:02:58Z", "receiver on 2024-05-01T12:04:38Z",
            "receiver off 2024-05-01T12:04:38Z", "receiver on 2024-05-01T12:06:18Z", "receiver off 2024-05-01T12:06:18Z",
            "receiver on 2024-05-01T12:07:58Z", "resumed moved 2024-05-01T12:07:58Z", "receiver off 2024-05-01T12:08:20Z", "summary",
        ])
        // On 0…78 s and 478…500 s: 100 of 500 s.
        let summary = try #require(events.last)
        #expect(summary["receiverOnS"] as? Double == 100)
        #expect(summary["spanS"] as? Double == 500)
    }

    @Test func watchGivesUpAndRetries() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        // 300 m accuracy for the first 100 s, then 5 m.
        let points: [(seconds: Double, northM: Double, eph: Double?)] = (0...150).map { (Double($0), Double($0), $0 < 100 ? 300.0 : 5.0) }
        let path = try Self.write(Self.track(points), in: scratch)
        let result = try await CLIHarness.run(
            ["location", "watch", "--json", "--replay", path, "--accuracy", "20", "--give-up", "40", "--retry", "50"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init).filter { !$0.contains(#""event":"location""#) }
        #expect(lines == [
            #"{"event":"receiver","state":"on","time":"2024-05-01T12:00:00Z"}"#,
            #"{"event":"gaveUp","time":"2024-05-01T12:00:40Z","bestAccuracyM":300,"retryAt":"2024-05-01T12:01:30Z"}"#,
            #"{"event":"receiver","state":"off","time":"2024-05-01T12:00:40Z"}"#,
            #"{"event":"receiver","state":"on","time":"2024-05-01T12:01:30Z"}"#,
            #"{"event":"receiver","state":"off","time":"2024-05-01T12:02:30Z"}"#,
            #"{"event":"summary","receiverOnS":100,"spanS":150,"fixes":101}"#,
        ])
        #expect(result.stdout.components(separatedBy: #""event":"location""#).count - 1 == 51)  // 100…150 s
    }

    @Test func readableLinesWithoutJSON() async throws {
        let result = try await CLIHarness.run(["location", "once", "--source", "fixed:52.52,13.405,8"], environment: ["TZ": "UTC"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasSuffix(" receiver on"))
        #expect(lines[1].hasSuffix(" 52.520000, 13.405000 ±8.0 m (fixed)"), "\(lines)")
        #expect(lines[3] == "receiver on 0.0 s of 0.0 s, 1 fix(es)")
    }

    @Test func badReplayContentExitsTwoNamingTheLineAndKey() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-location")
        let good = Self.track([(0, 0, 5), (1, 10, 5)])
        let cases: [(String, String)] = [
            (good + "{\"class\":\"TPV\",\"mode\":3,\n", "line 6: invalid JSON"),
            (good + #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:05Z","lat":1,"lon":181}"#, "line 6: lon: "),
            (good + #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:05Z","lat":91,"lon":1}"#, "line 6: lat: "),
            (good + #"{"class":"TPV","mode":3,"lat":1,"lon":1}"#, "line 6: time: missing"),
            (good + #"{"class":"TPV","mode":3,"time":"noon","lat":1,"lon":1}"#, "line 6: time: expected ISO-8601"),
            (good + #"{"class":"TPV","mode":3,"time":"2024-05-01T11:00:00Z","lat":1,"lon":1}"#, "line 6: time: goes backwards"),
        ]
        for (i, (text, message)) in cases.enumerated() {
            let path = try Self.write(text, in: scratch, name: "bad\(i).ndjson")
            for command in ["once", "watch"] {
                let result = try await CLIHarness.run(["location", command, "--json", "--replay", path])
                #expect(result.status == 2, "\(message): \(result.stderr)")
                #expect(result.stderr.hasPrefix("joule location: \(path): \(message)"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test(arguments: [
        ["once", "--accuracy", "0", "--source", "fixed:1,2"], ["once", "--accuracy", "-5", "--source", "fixed:1,2"],
        ["once", "--timeout", "0", "--source", "fixed:1,2"], ["once", "--source", "fixed:91,2"], ["once", "--source", "fixed:1,2,0"],
        ["once", "--source", "somewhere"], ["once", "--replay", "a", "--source", "fixed:1,2"], ["watch", "--distance", "-1", "--source", "fixed:1,2"],
        ["watch", "--defer-distance", "0", "--source", "fixed:1,2"], ["watch", "--ttff", "-1", "--source", "fixed:1,2"],
        ["once", "--replay", "/nonexistent/joule.ndjson"],
    ])
    func badOptionsExitTwo(arguments: [String]) async throws {
        let result = try await CLIHarness.run(["location"] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty && result.stdout.isEmpty)
    }
}
