import JouleHardware
import Testing

/// The pure parts of the GeoClue source: the level table, and a Location object's properties
/// as a fix under GeoClue's conventions for what it does not know.
@Suite struct GeoClueDecoderTests {
    @Test func theLevelIsTheCoarsestThatMeetsTheRequestAtEveryBoundary() {
        let cases: [(Double, GeoClueAccuracyLevel)] = [
            (0.5, .exact), (10, .exact), (100, .exact), (100.000001, .street), (101, .street),
            (1_000, .street), (1_000.5, .neighborhood), (5_000, .neighborhood), (5_000.01, .city),
            (15_000, .city), (15_000.1, .country), (1e9, .country), (.infinity, .country),
            // Not a request Joule accepts (the CLI refuses them): the finest, never a coarser guess.
            (0, .exact), (-5, .exact), (.nan, .exact),
        ]
        for (metres, level) in cases {
            #expect(GeoClueAccuracyLevel.coarsest(meeting: metres) == level, "\(metres) m")
        }
        #expect([GeoClueAccuracyLevel.exact, .street, .neighborhood, .city, .country].map(\.rawValue) == [8, 6, 5, 4, 1])
    }

    static func properties(_ overrides: [(String, BusValue)] = [], removing: Set<String> = []) -> [(String, BusValue)] {
        var values: [(String, BusValue)] = [
            ("Latitude", .double(48.85837)), ("Longitude", .double(2.294481)), ("Accuracy", .double(25)),
            ("Altitude", .double(41.5)), ("Speed", .double(1.25)), ("Heading", .double(270)),
            ("Description", .string("WiFi")), ("Timestamp", .structure([.uint64(1_714_564_800), .uint64(250_000)])),
        ]
        values.removeAll { removing.contains($0.0) }
        for (name, value) in overrides {
            values.removeAll { $0.0 == name }
            values.append((name, .variant(value)))
        }
        return values
    }

    @Test func aFullLocationIsAFix() throws {
        let fix = try GeoClueLocation.fix(properties: Self.properties(), path: "/L/1", receivedMicros: 5)
        #expect(
            fix
                == LocationFix(
                    timeMicros: 1_714_564_800_250_000, latitude: 48.85837, longitude: 2.294481, horizontalAccuracyM: 25,
                    altitudeM: 41.5, verticalAccuracyM: nil, speedMps: 1.25, courseDeg: 270, source: "geoclue"))
    }

    @Test func geoCluesUnknownsAreNil() throws {
        let unknown = try GeoClueLocation.fix(
            properties: Self.properties([
                ("Altitude", .double(-1.7976931348623157e308)), ("Speed", .double(-1)), ("Heading", .double(-1)),
                ("Timestamp", .structure([.uint64(0), .uint64(0)])),
            ]), path: "/L/1", receivedMicros: 77)
        #expect(unknown.altitudeM == nil && unknown.speedMps == nil && unknown.courseDeg == nil)
        #expect(unknown.timeMicros == 77, "no timestamp: the time it was received")
        // An accuracy GeoClue did not know (negative, not finite, zero, absent) is nil: it meets nothing.
        for accuracy: Double in [-1, .nan, .infinity, -.infinity, 0] {
            let fix = try GeoClueLocation.fix(properties: Self.properties([("Accuracy", .double(accuracy))]), path: "/L/1", receivedMicros: 0)
            #expect(fix.horizontalAccuracyM == nil, "\(accuracy)")
            #expect(!fix.meetsAccuracy(1e12))
        }
        let none = try GeoClueLocation.fix(properties: Self.properties(removing: ["Accuracy", "Timestamp"]), path: "/L/1", receivedMicros: 9)
        #expect(none.horizontalAccuracyM == nil && none.timeMicros == 9)
        #expect(try GeoClueLocation.fix(properties: Self.properties([("Heading", .double(360))]), path: "/", receivedMicros: 0).courseDeg == 0)
    }

    @Test func whatIsNotAPositionIsAnErrorNamingThePath() {
        let bad: [([(String, BusValue)], String)] = [
            (Self.properties(removing: ["Latitude"]), "no Latitude"),
            (Self.properties(removing: ["Longitude"]), "no Longitude"),
            (Self.properties([("Latitude", .double(90.5))]), "Latitude 90.5 is not in -90...90"),
            (Self.properties([("Longitude", .double(-180.01))]), "Longitude -180.01 is not in -180...180"),
            (Self.properties([("Latitude", .double(.nan))]), "Latitude nan"),
            (Self.properties([("Latitude", .string("48"))]), "Latitude is s"),
            (Self.properties([("Timestamp", .uint64(5))]), "Timestamp is t 5, not (tt)"),
            (Self.properties([("Timestamp", .structure([.uint64(1), .uint64(1_000_000)]))]), "is not a time"),
            (Self.properties([("Timestamp", .structure([.uint64(.max), .uint64(0)]))]), "is not a time"),
        ]
        for (properties, detail) in bad {
            do {
                _ = try GeoClueLocation.fix(properties: properties, path: "/org/freedesktop/GeoClue2/Client/1/Location/3", receivedMicros: 0)
                Issue.record("accepted: \(detail)")
            } catch {
                #expect("\(error)".hasPrefix("GeoClue location /org/freedesktop/GeoClue2/Client/1/Location/3: "), "\(error)")
                #expect("\(error)".contains(detail), "\(error)")
            }
        }
    }

    @Test func refusalAndAbsenceNameTheFix() {
        let denied = GeoClueError.accessDenied(operation: "Start", message: "'joule' disallowed, no agent for UID 0")
        #expect("\(denied)".contains("/etc/geoclue/conf.d/90-joule.conf") && "\(denied)".contains("make install"))
        #expect("\(denied)".contains("'joule' disallowed, no agent for UID 0"))
        #expect("\(GeoClueError.vanished)".contains("org.freedesktop.GeoClue2"))
        #expect("\(GeoClueError.noAnswer(operation: "CreateClient", seconds: 10))".contains("agent"))
    }
}
