import JouleHardware
import JouleTesting
import Testing

/// Joule's GeoClue2 client against a GeoClue mock (Tests/Support/geoclue2_template.py) on a
/// private bus, every assertion read from the mock's side: the client's properties, the
/// levels GeoClue saw at Start, and the calls in order.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct GeoClueClientTests {
    static func withGeoClue(
        fixOnStart: [String: Double]? = nil, denyStart: String? = nil, _ body: (PrivateBusDaemon, DBusMock, GeoClueClient) async throws -> Void
    ) async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock.geoclue(address: daemon.address, fixOnStart: fixOnStart, denyStart: denyStart)
            defer { mock.stop() }
            let client = try await GeoClueClient.open(bus: try await BusConnection.open(address: daemon.address), callTimeout: .seconds(20))
            do {
                try await body(daemon, mock, client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        }
    }

    @Test func theClientIsJouleAtTheLevelAndThresholdsAskedThenStartsAndStops() async throws {
        try await Self.withGeoClue { _, mock, client in
            var paths: [String] = []
            for (metres, distance, time) in [(50.0, 0 as UInt32, 0 as UInt32), (800, 25, 7), (3_000, 100, 60), (12_000, 500, 300), (40_000, 0, 0)] {
                let level = GeoClueAccuracyLevel.coarsest(meeting: metres)
                let path = try await client.createClient(.init(level: level, distanceThresholdM: distance, timeThresholdS: time))
                paths.append(path)
                #expect(try await mock.geoclueClientProperty(path, "DesktopId") == .string("joule"))
                #expect(try await mock.geoclueClientProperty(path, "RequestedAccuracyLevel") == .uint32(level.rawValue), "\(metres) m")
                #expect(try await mock.geoclueClientProperty(path, "DistanceThreshold") == .uint32(distance))
                #expect(try await mock.geoclueClientProperty(path, "TimeThreshold") == .uint32(time))
                try await client.start()
                #expect(try await mock.geoclueClientProperty(path, "Active") == .bool(true))
                try await client.stop()
                #expect(try await mock.geoclueClientProperty(path, "Active") == .bool(false))
            }
            // One client per session (CreateClient, never GetClient), each started at its own level.
            #expect(Set(paths).count == 5)
            #expect(try await mock.methodCalls("GetClient").isEmpty)
            #expect(try await mock.geoclueStartLevels() == [8, 6, 5, 4, 1])
            let events = try await mock.geoclueEvents()
            #expect(events == paths.flatMap { ["CreateClient \($0)", "Start \($0)", "Stop \($0)"] })
        }
    }

    @Test func aCoarserLevelLaterRestartsTheClientAtIt() async throws {
        try await Self.withGeoClue { _, mock, client in
            let path = try await client.createClient(.init(level: .exact))
            try await client.start()
            try await client.setLevel(.street)
            #expect(try await mock.geoclueClientProperty(path, "RequestedAccuracyLevel") == .uint32(6))
            #expect(try await mock.geoclueStartLevels() == [8, 6])
            #expect(try await mock.geoclueEvents() == ["CreateClient \(path)", "Start \(path)", "Stop \(path)", "Start \(path)"])
        }
    }

    @Test func locationUpdatedIsReadFromTheNewLocationObject() async throws {
        try await Self.withGeoClue { _, mock, client in
            let path = try await client.createClient(.init(level: .exact))
            try await client.start()
            let location = try await mock.emitGeoClueLocation(
                client: path,
                [
                    ("Latitude", .double(52.52)), ("Longitude", .double(13.405)), ("Accuracy", .double(35)),
                    ("Speed", .double(2)), ("Timestamp", .structure([.uint64(1_714_564_800), .uint64(5)])),
                ])
            #expect(await client.nextEvent(before: .now + .seconds(20)) == .locationUpdated(client: path, location: location))
            let fix = try await client.location(at: location, receivedMicros: 1)
            #expect(fix.latitude == 52.52 && fix.longitude == 13.405 && fix.horizontalAccuracyM == 35 && fix.speedMps == 2)
            #expect(fix.timeMicros == 1_714_564_800_000_005 && fix.source == "geoclue")
            #expect(fix.altitudeM == nil && fix.courseDeg == nil, "GeoClue's unknowns")

            // GeoClue reports an unknown accuracy as a negative double: null, not a perfect fix.
            let unknown = try await mock.emitGeoClueLocation(client: path, [("Latitude", .double(1)), ("Longitude", .double(2)), ("Accuracy", .double(-1))])
            #expect(await client.nextEvent(before: .now + .seconds(20)) == .locationUpdated(client: path, location: unknown))
            #expect(try await client.location(at: unknown, receivedMicros: 1).horizontalAccuracyM == nil)

            // Nothing more: the wait ends at its deadline.
            #expect(await client.nextEvent(before: .now + .milliseconds(100)) == nil)
        }
    }

    @Test func accessDeniedAtStartNamesTheWhitelist() async throws {
        try await Self.withGeoClue(denyStart: "'joule' disallowed by configuration for UID 0") { _, mock, client in
            try await client.createClient(.init(level: .city))
            do throws(GeoClueError) {
                try await client.start()
                Issue.record("Start was allowed")
            } catch {
                #expect(error == .accessDenied(operation: "Start", message: "'joule' disallowed by configuration for UID 0"))
                #expect("\(error)".contains(GeoClueError.whitelistFile), "\(error)")
            }
            #expect(!client.isStarted)
            #expect(try await mock.geoclueStartLevels().isEmpty)
        }
    }

    @Test func theNameVanishingAndReturningAreEvents() async throws {
        try await Self.withGeoClue { daemon, mock, client in
            try await client.createClient(.init(level: .exact))
            try await client.start()
            mock.stop()
            #expect(await client.nextEvent(before: .now + .seconds(20)) == .vanished)
            #expect(client.clientPath == nil && !client.isStarted)
            let again = try await DBusMock.geoclue(address: daemon.address)
            defer { again.stop() }
            guard case .appeared(let owner)? = await client.nextEvent(before: .now + .seconds(20)) else {
                Issue.record("no .appeared")
                return
            }
            #expect(owner.hasPrefix(":"))
            let path = try await client.createClient(.init(level: .street))
            try await client.start()
            #expect(try await again.geoclueEvents() == ["CreateClient \(path)", "Start \(path)"])
        }
    }

    @Test func withoutGeoClueTheProbeSaysWhoIsMissing() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            do {
                try await GeoClueClient.probe(bus: bus)
                Issue.record("GeoClue found on an empty bus")
            } catch {
                #expect("\(error)".contains("org.freedesktop.GeoClue2") && "\(error)".contains("nobody owns"), "\(error)")
            }
            await bus.close()
            let missing = await GeoClueClient.unavailability(environment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.address])
            #expect(missing.map { "\($0)" }?.contains("GeoClue (org.freedesktop.GeoClue2) is not on the system bus") == true)
            let mock = try await DBusMock.geoclue(address: daemon.address)
            defer { mock.stop() }
            #expect(await GeoClueClient.unavailability(environment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.address]) == nil)
        }
    }
}
