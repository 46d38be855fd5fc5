import Foundation
import JouleHardware
import JouleLocation
import JouleTesting
import Testing

/// `--source geoclue` end to end: `joule location once` and the GeoClue receiver against a
/// GeoClue2 mock (Tests/Support/geoclue2_template.py) on a private system bus, each outcome
/// read from the mock's side (levels at Start, Start then Stop, the client deleted).
@Suite(
    .serialized,
    .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"),
    .enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
struct LocationGeoClueTests {
    static func environment(_ daemon: PrivateBusDaemon) -> [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": daemon.address] }

    static func jsonLines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// Timestamp 0: GeoClue had no time, so the fix's time is when joule received it.
    static let eiffel: [String: Double] = ["Latitude": 48.85837, "Longitude": 2.294481, "Timestamp": 0]

    @Test func onceStartsAtTheLevelForTheAccuracyAndStopsAfterTheFix() async throws {
        try await PrivateBusDaemon.with { daemon in
            for (accuracy, level) in [(50.0, 8 as UInt32), (1_000, 6), (5_000, 5), (15_000, 4), (20_000, 1)] {
                var fix = Self.eiffel
                fix["Accuracy"] = accuracy / 2
                let mock = try await DBusMock.geoclue(address: daemon.address, fixOnStart: fix)
                defer { mock.stop() }
                let result = try await CLIHarness.run(
                    ["location", "once", "--json", "--source", "geoclue", "--accuracy", "\(accuracy)"], environment: Self.environment(daemon))
                #expect(result.status == 0, "\(accuracy) m: \(result.stderr)")
                let lines = try Self.jsonLines(result.stdout)
                #expect(lines.map { $0["event"] as? String } == ["receiver", "location", "receiver", "summary"], "\(result.stdout)")
                let location = try #require(lines.first { $0["event"] as? String == "location" })
                #expect(location["accuracyMet"] as? Bool == true)
                let fixJSON = try #require(location["fix"] as? [String: Any])
                #expect(fixJSON["source"] as? String == "geoclue" && fixJSON["latitude"] as? Double == 48.85837)
                #expect(fixJSON["horizontalAccuracyM"] as? Double == accuracy / 2)
                #expect(fixJSON["altitudeM"] is NSNull && fixJSON["speedMps"] is NSNull)
                // GeoClue's side: one client, DesktopId joule, the level for the accuracy, Start then
                // Stop (GeoClue may turn its sources off), then the client deleted.
                #expect(try await mock.geoclueStartLevels() == [level], "\(accuracy) m")
                let events = try await mock.geoclueEvents()
                let path = "/org/freedesktop/GeoClue2/Client/1"
                #expect(events == ["CreateClient \(path)", "Start \(path)", "Stop \(path)", "DeleteClient \(path)"], "\(events)")
                mock.stop()
                #expect(await eventually { (try? await DBusMock.hasOwner("org.freedesktop.GeoClue2", on: mock.connection)) == false })
            }
        }
    }

    @Test func anUnknownAccuracyIsNullAndNeverMeetsTheRequest() async throws {
        try await PrivateBusDaemon.with { daemon in
            var fix = Self.eiffel
            fix["Accuracy"] = -1
            let mock = try await DBusMock.geoclue(address: daemon.address, fixOnStart: fix)
            defer { mock.stop() }
            let result = try await CLIHarness.run(
                ["location", "once", "--json", "--source", "geoclue", "--timeout", "1"], environment: Self.environment(daemon))
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try Self.jsonLines(result.stdout)
            let location = try #require(lines.first { $0["event"] as? String == "location" }, "\(result.stdout)")
            #expect(location["accuracyMet"] as? Bool == false)
            #expect((location["fix"] as? [String: Any])?["horizontalAccuracyM"] is NSNull)
            #expect(try await mock.geoclueEvents().contains("Stop /org/freedesktop/GeoClue2/Client/1"))
        }
    }

    @Test func accessDeniedExitsOneNamingTheWhitelist() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock.geoclue(address: daemon.address, denyStart: "'joule' disallowed, no agent for UID 0")
            defer { mock.stop() }
            let result = try await CLIHarness.run(
                ["location", "once", "--json", "--source", "geoclue", "--timeout", "20"], environment: Self.environment(daemon))
            #expect(result.status == 1)
            #expect(result.stderr.contains("GeoClue refused joule"), "\(result.stderr)")
            #expect(result.stderr.contains("'joule' disallowed, no agent for UID 0"), "\(result.stderr)")
            #expect(result.stderr.contains("/etc/geoclue/conf.d/90-joule.conf"), "\(result.stderr)")
            // The refusal is also an error event, between the receiver's on and off.
            let events = try Self.jsonLines(result.stdout).map { $0["event"] as? String }
            #expect(events == ["receiver", "error", "receiver", "summary"], "\(result.stdout)")
        }
    }

    @Test func withoutGeoClueOnTheBusItExitsOneNamingIt() async throws {
        try await PrivateBusDaemon.with { daemon in
            let result = try await CLIHarness.run(["location", "once", "--source", "geoclue"], environment: Self.environment(daemon))
            #expect(result.status == 1)
            #expect(result.stderr.contains("GeoClue (org.freedesktop.GeoClue2) is not on the system bus"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// `watch` on GeoClue prints each event as it happens: a fix, the name vanishing as an
    /// error event naming GeoClue, and fixes again from the client created on its return.
    @Test func watchReportsGeoClueLeavingAndGoesOnWhenItReturns() async throws {
        try await PrivateBusDaemon.with { daemon in
            let first = try await DBusMock.geoclue(address: daemon.address, fixOnStart: Self.eiffel.merging(["Accuracy": 20]) { $1 })
            defer { first.stop() }
            let joule = try CLIProcess(
                ["location", "watch", "--json", "--source", "geoclue", "--accuracy", "50", "--distance", "10"],
                environment: Self.environment(daemon))
            defer { joule.end() }
            func next() async throws -> [String: Any] {
                let line = try #require(await joule.nextLine(), "no line from joule location watch")
                return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            }
            #expect(try await next()["state"] as? String == "on")
            let fix = try await next()
            #expect(fix["event"] as? String == "location" && (fix["fix"] as? [String: Any])?["source"] as? String == "geoclue", "\(fix)")
            let path = "/org/freedesktop/GeoClue2/Client/1"
            #expect(try await first.geoclueClientProperty(path, "DistanceThreshold") == .uint32(10))
            #expect(try await first.geoclueStartLevels() == [8])

            first.stop()
            let error = try await next()
            #expect(error["event"] as? String == "error", "\(error)")
            #expect((error["message"] as? String)?.contains("GeoClue (org.freedesktop.GeoClue2) left the system bus") == true, "\(error)")

            // Back, farther than --distance from the last fix delivered: a new client, started, delivers.
            let second = try await DBusMock.geoclue(
                address: daemon.address, fixOnStart: ["Latitude": 48.86, "Longitude": 2.294481, "Accuracy": 12])
            defer { second.stop() }
            let again = try await next()
            #expect(again["event"] as? String == "location" && (again["fix"] as? [String: Any])?["horizontalAccuracyM"] as? Double == 12, "\(again)")
            let events = try await second.geoclueEvents()
            #expect(events == ["CreateClient \(path)", "Start \(path)"], "\(events)")
            // SIGINT ends the session with the receiver off and the summary, exit 0.
            let status = await joule.stop(SIGINT)
            var rest: [[String: Any]] = []
            while let line = await joule.nextLine() {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { rest.append(object) }
            }
            #expect(status == 0, "\(rest)")
            #expect(rest.last?["event"] as? String == "summary", "\(rest)")
            #expect(rest.contains { $0["event"] as? String == "receiver" && $0["state"] as? String == "off" }, "\(rest)")
        }
    }

    /// The receiver as the engines drive it: GeoClue vanishing mid-session is a trouble naming
    /// it; when the name returns the client is created again and started, and fixes resume.
    @Test func theNameVanishingIsTroubleThenTheClientComesBack() async throws {
        try await PrivateBusDaemon.with { daemon in
            let first = try await DBusMock.geoclue(address: daemon.address, fixOnStart: Self.eiffel.merging(["Accuracy": 20]) { $1 })
            defer { first.stop() }
            var receiver = try await GeoClueReceiver.open(accuracyM: 800, distanceM: 30, environment: Self.environment(daemon))
            let path = try #require(receiver.client.clientPath)
            #expect(try await first.geoclueClientProperty(path, "DistanceThreshold") == .uint32(30))
            #expect(try await first.geoclueClientProperty(path, "DesktopId") == .string("joule"))
            await receiver.turnOn(at: WallClock.micros())
            let deadline = { WallClock.micros() + 20_000_000 }
            guard case .fix(let fix) = await receiver.next(before: deadline()) else {
                Issue.record("no first fix")
                return
            }
            #expect(fix.horizontalAccuracyM == 20 && fix.source == "geoclue")

            first.stop()
            guard case .trouble(let message, _) = await receiver.next(before: deadline()) else {
                Issue.record("no trouble when GeoClue left")
                return
            }
            #expect(message.contains("GeoClue (org.freedesktop.GeoClue2) left the system bus"), "\(message)")

            let second = try await DBusMock.geoclue(address: daemon.address, fixOnStart: Self.eiffel.merging(["Accuracy": 15]) { $1 })
            defer { second.stop() }
            guard case .fix(let again) = await receiver.next(before: deadline()) else {
                Issue.record("no fix after GeoClue returned")
                return
            }
            #expect(again.horizontalAccuracyM == 15)
            // The new GeoClue got a new client, at the same level, started.
            let events = try await second.geoclueEvents()
            #expect(events.count == 2 && events[0].hasPrefix("CreateClient ") && events[1].hasPrefix("Start "), "\(events)")
            #expect(try await second.geoclueStartLevels() == [6])

            // A coarser request later (policy relaxing) restarts the client at the coarser level.
            await receiver.requestAccuracy(10_000)
            #expect(try await second.geoclueStartLevels() == [6, 4])
            await receiver.turnOff(at: WallClock.micros())
            #expect(try await second.geoclueEvents().last?.hasPrefix("Stop ") == true)
            await receiver.close()
            #expect(try await second.geoclueEvents().last?.hasPrefix("DeleteClient ") == true)
        }
    }
}
