import Foundation
import JouleHardware
import JouleLocation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule location` against a real gpsd (Tests/Support/gpsd_rig.py: gpsd on a port of its own,
/// without -n, reading a pty fed with NMEA stamped with the current time). That the receiver
/// is closed is proved from gpsd's side: the pty is no longer among gpsd's /proc/PID/fd. gpsd
/// closes a device RELEASE_TIMEOUT (60 s, gpsd.c) after its last watcher leaves, so those two
/// tests wait about a minute; the tests run concurrently, each with its own gpsd. CI (CI=true)
/// requires gpsd; elsewhere the suite is skipped without it.
@Suite(.enabled("needs gpsd: run scripts/install-deps.sh (CI requires it)") { GPSDRig.shouldRun })
struct LocationGPSDTests {
    static let latitude = 48.85837
    static let longitude = 2.294481

    /// gpsd's eph is HDOP × 19 m (no DGPS): hdop 20 → 380 m, 4 → 76 m, 1 → 19 m.
    static let improving: [GPSDRig.Step] = [
        .noFix(epochs: 5), .fix(latitude: latitude, longitude: longitude, hdop: 20, epochs: 10),
        .fix(latitude: latitude, longitude: longitude, hdop: 4, epochs: 10), .fix(latitude: latitude, longitude: longitude, hdop: 1, epochs: 1),
    ]
    static let still: [GPSDRig.Step] = [.fix(latitude: latitude, longitude: longitude, hdop: 0.5, epochs: 1)]

    /// Walking north 4 m an epoch (5 epochs a second), then standing still.
    static var walk: [GPSDRig.Step] {
        (0..<60).map { step in
            let point = Geodesy.offset(latitude: latitude, longitude: longitude, northM: Double(step) * 4, eastM: 0)
            return .fix(latitude: point.latitude, longitude: point.longitude, hdop: 0.5, epochs: 1)
        }
    }

    static func json(_ line: String) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// Reads lines until one satisfies `match`; nil when joule ended or 30 s passed first.
    static func waitFor(_ watch: CLIProcess, seen: inout [String], _ match: ([String: Any]) -> Bool) async -> [String: Any]? {
        while let line = await watch.nextLine(timeout: 30) {
            seen.append(line)
            if let object = json(line), match(object) { return object }
        }
        return nil
    }

    static func event(_ name: String) -> ([String: Any]) -> Bool { { $0["event"] as? String == name } }

    /// The device closed from gpsd's side, within its release timeout and some slack.
    static func gpsdClosesTheDevice(_ rig: GPSDRig) async -> Bool {
        await eventually(timeout: 100, every: .milliseconds(250)) { !rig.gpsdHasDeviceOpen() }
    }

    @Test func onceStopsAtTheFirstAccurateFixAndGpsdThenClosesTheDevice() async throws {
        let rig = try await GPSDRig(track: Self.improving)
        let result = try await CLIHarness.run(["location", "once", "--source", "gpsd", "--gpsd", rig.address, "--accuracy", "50", "--json"])
        #expect(result.status == 0, "\(result.stderr)\n\(rig.gpsdLog)")
        let events = result.stdout.split(separator: "\n").compactMap { Self.json(String($0)) }
        #expect(events.map { $0["event"] as? String } == ["receiver", "location", "receiver", "summary"], "\(result.stdout)")
        guard events.count == 4 else { return }
        let fix = try #require(events[1]["fix"] as? [String: Any])
        #expect(events[1]["accuracyMet"] as? Bool == true)
        #expect(fix["source"] as? String == "gpsd")
        let eph = try #require(fix["horizontalAccuracyM"] as? Double)
        #expect(abs(eph - 19) < 0.01, "the first fix at 50 m or better is HDOP 1's 19 m: \(fix)")
        #expect((events[3]["fixes"] as? Int ?? 0) > 1, "coarser fixes came first: \(events[3])")
        #expect(events[2]["state"] as? String == "off")
        // gpsd's side: the device was opened for joule, and closed once no client watched.
        #expect(rig.deviceOpenings >= 1)
        #expect(await Self.gpsdClosesTheDevice(rig), "gpsd still has \(rig.pty) open\n\(rig.gpsdLog.suffix(2000))")
    }

    @Test func watchDeliversFixesAtLeastTheDistanceApart() async throws {
        let rig = try await GPSDRig(track: Self.walk)
        let watch = try CLIProcess(["location", "watch", "--source", "gpsd", "--gpsd", rig.address, "--distance", "30", "--json"])
        defer { watch.end() }
        var seen: [String] = []
        var fixes: [[String: Any]] = []
        while fixes.count < 4, let event = await Self.waitFor(watch, seen: &seen, Self.event("location")) {
            fixes.append(try #require(event["fix"] as? [String: Any]))
        }
        #expect(fixes.count == 4, "\(seen)")
        #expect(await watch.stop(SIGINT) == 0)
        let rest = watch.pendingLines().compactMap(Self.json)
        #expect(rest.last?["event"] as? String == "summary", "SIGINT ends with the summary: \(rest)")
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let d = Geodesy.distanceM(
                try #require(a["latitude"] as? Double), try #require(a["longitude"] as? Double),
                try #require(b["latitude"] as? Double), try #require(b["longitude"] as? Double))
            #expect(d >= 30, "\(a) → \(b): \(d) m")
        }
    }

    @Test func aPausedWatchLetsGpsdCloseTheDevice() async throws {
        let rig = try await GPSDRig(track: Self.still)
        let watch = try CLIProcess([
            "location", "watch", "--source", "gpsd", "--gpsd", rig.address, "--pause-when-stationary", "2", "--probe", "600", "--json",
        ])
        defer { watch.end() }
        var seen: [String] = []
        #expect(await Self.waitFor(watch, seen: &seen, Self.event("paused")) != nil, "\(seen)")
        #expect(await Self.waitFor(watch, seen: &seen) { $0["event"] as? String == "receiver" && $0["state"] as? String == "off" } != nil)
        #expect(await Self.gpsdClosesTheDevice(rig), "gpsd still has \(rig.pty) open while joule sleeps\n\(rig.gpsdLog.suffix(2000))")
        #expect(!watch.hasExited, "joule sleeps until the probe")
        #expect(await watch.stop(SIGINT) == 0)
        #expect(watch.pendingLines().compactMap(Self.json).last?["event"] as? String == "summary")
    }

    @Test(arguments: ["gpsd", "auto"])
    func gpsdAbsentExitsOneNamingIt(source: String) async throws {
        // Port 1 on the loopback: nothing listens there.
        let result = try await CLIHarness.run(["location", "once", "--source", source, "--gpsd", "127.0.0.1:1", "--json"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("gpsd at 127.0.0.1:1: connect: Connection refused (ECONNREFUSED)"), "\(result.stderr)")
        if source == "auto" { #expect(result.stderr.contains("GeoClue"), "\(result.stderr)") }
    }

    @Test func gpsdKilledMidWatchIsAnErrorEventThenReconnection() async throws {
        let rig = try await GPSDRig(track: Self.still)
        let watch = try CLIProcess(["location", "watch", "--source", "gpsd", "--gpsd", rig.address, "--json"])
        defer { watch.end() }
        var seen: [String] = []
        #expect(await Self.waitFor(watch, seen: &seen, Self.event("location")) != nil, "\(seen)")
        try await rig.kill()
        let error = await Self.waitFor(watch, seen: &seen, Self.event("error"))
        let message = error?["message"] as? String ?? ""
        #expect(message.hasPrefix("gpsd at \(rig.address): "), "\(seen)")
        try await rig.restart()
        // The back-off is at most a few seconds here (1 s, 2 s, 4 s…): fixes come again.
        #expect(await Self.waitFor(watch, seen: &seen, Self.event("location")) != nil, "no fix after gpsd came back: \(seen)")
        #expect(await watch.stop(SIGINT) == 0)
        #expect(watch.pendingLines().compactMap(Self.json).last?["event"] as? String == "summary")
    }

    @Test func aDeviceThatNeverFixesExitsOneNamingTheSource() async throws {
        let rig = try await GPSDRig(track: [.noFix(epochs: 1)])
        let result = try await CLIHarness.run(["location", "once", "--source", "gpsd", "--gpsd", rig.address, "--timeout", "3", "--json"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains("no fix from gpsd at \(rig.address)"), "\(result.stderr)")
        let events = result.stdout.split(separator: "\n").compactMap { Self.json(String($0)) }
        #expect(events.last?["event"] as? String == "summary")
        #expect(events.last?["fixes"] as? Int == 0)
    }

    @Test func recordWritesWhatGpspipeWritesAndReplayReadsIt() async throws {
        let rig = try await GPSDRig(track: Self.walk)
        let file = rig.scratch.path + "/recorded.ndjson"
        let result = try await CLIHarness.run(["location", "record", file, "--source", "gpsd", "--gpsd", rig.address, "--count", "10", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { Self.json(String($0)) }
        #expect(lines.filter { $0["class"] as? String == "TPV" && ($0["mode"] as? Int ?? 0) >= 2 }.count == 10)
        #expect(lines.contains { $0["class"] as? String == "DEVICE" || $0["class"] as? String == "DEVICES" }, "other classes pass through")
        let events = result.stdout.split(separator: "\n").compactMap { Self.json(String($0)) }
        #expect(events.last?["fixes"] as? Int == 10)
        let replay = try await CLIHarness.run(["location", "watch", "--replay", file, "--json"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains(#""event":"location""#))
    }
}
