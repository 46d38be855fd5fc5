import JouleHardware
import JouleLocation
import JouleWire
import Testing

extension LocationEvent {
    var json: String { JSONValue.object(jsonObject).serialized }
}

/// The JSON shapes of the issue, the source specs, and the haversine distance.
@Suite struct LocationOutputTests {
    static let fix = LocationFix(
        timeMicros: 1_714_564_801_500_000, latitude: 51.5, longitude: -0.125, horizontalAccuracyM: 5.25, altitudeM: 48.2,
        verticalAccuracyM: nil, speedMps: 1.5, courseDeg: nil, source: "replay")

    @Test func fixJSONHasEveryKeyInOrderWithNullForTheUnknown() async {
        #expect(Self.fix.jsonObject.entries.map(\.0) == [
            "time", "latitude", "longitude", "horizontalAccuracyM", "altitudeM", "verticalAccuracyM", "speedMps", "courseDeg", "source",
        ])
        #expect(
            LocationEvent.location(Self.fix, accuracyMet: true).json
                == #"{"event":"location","fix":{"time":"2024-05-01T12:00:01.5Z","latitude":51.5,"longitude":-0.125,"horizontalAccuracyM":5.25,"altitudeM":48.2,"verticalAccuracyM":null,"speedMps":1.5,"courseDeg":null,"source":"replay"},"accuracyMet":true}"#)
    }

    @Test func eventShapes() async {
        #expect(LocationEvent.receiver(isOn: true, timeMicros: 1_714_564_800_000_000).json
            == #"{"event":"receiver","state":"on","time":"2024-05-01T12:00:00Z"}"#)
        #expect(LocationEvent.receiver(isOn: false, timeMicros: 1_714_564_800_000_000).json
            == #"{"event":"receiver","state":"off","time":"2024-05-01T12:00:00Z"}"#)
        #expect(LocationEvent.location(Self.fix, accuracyMet: nil).jsonObject["accuracyMet"] == nil)
        #expect(LocationEvent.summary(LocationSummary(receiverOnMicros: 4_500_000, spanMicros: 60_000_000, fixes: 7)).json
            == #"{"event":"summary","receiverOnS":4.5,"spanS":60,"fixes":7}"#)
        let deferred = LocationEvent.deferred([Self.fix, Self.fix], reason: .distance).jsonObject
        #expect(deferred.entries.map(\.0) == ["event", "fixes", "reason"])
        #expect(deferred["reason"] == .string("distance"))
    }

    @Test func readableLines() async {
        let clock: (Int64) -> String = { _ in "12:00:01" }
        #expect(Self.fix.text(clock: clock) == "12:00:01 51.500000, -0.125000 ±5.3 m, alt 48.2 m, 1.5 m/s (replay)")
        #expect(LocationEvent.location(Self.fix, accuracyMet: false).text(clock: clock).hasSuffix("(replay) — accuracy not met"))
        #expect(LocationEvent.receiver(isOn: true, timeMicros: 0).text(clock: clock) == "12:00:01 receiver on")
    }

    @Test func sourceSpecs() async throws {
        #expect(try LocationSourceSpec.parse("replay:/tmp/a b.ndjson").get() == .replay(path: "/tmp/a b.ndjson"))
        #expect(try LocationSourceSpec.parse("fixed:52.52,13.405").get() == .fixed(latitude: 52.52, longitude: 13.405, accuracyM: nil))
        #expect(try LocationSourceSpec.parse("fixed:-33.9,151.2,25").get() == .fixed(latitude: -33.9, longitude: 151.2, accuracyM: 25))
        #expect(try LocationSourceSpec.parse("auto").get() == .auto)
        for bad in ["fixed:91,0", "fixed:0,181", "fixed:1", "fixed:1,2,0", "fixed:1,2,-5", "fixed:a,b", "fixed:nan,2", "fixed:1,2,3,4", "replay:", "gps", ""] {
            #expect(throws: LocationSourceSpec.SpecError.self, "\(bad)") { try LocationSourceSpec.parse(bad).get() }
        }
    }

    @Test func gpsdAndAutoWithNoGpsdNameWhatEachSaid() async {
        let dead = GPSDAddress(host: "127.0.0.1", port: 1)
        let refused = "gpsd at 127.0.0.1:1: connect: Connection refused (ECONNREFUSED)"
        await #expect(throws: LocationError.unavailable(message: refused)) {
            try await LocationSource.open(.gpsd, ttffMicros: 0, now: 0, gpsd: dead)
        }
        // No gpsd and no system bus: auto names both and what each said.
        let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/joule-test-bus"]
        do {
            _ = try await LocationSource.open(.auto, ttffMicros: 0, now: 0, gpsd: dead, environment: noBus)
            Issue.record("auto opened a source with neither gpsd nor a bus")
        } catch {
            #expect(error.description.hasPrefix("no location source answered: \(refused); GeoClue: "), "\(error)")
            #expect(error.description.count > "no location source answered: \(refused); GeoClue: ".count + 5, "\(error)")
        }
    }

    @Test func haversineDistances() async {
        // One degree of latitude on the mean sphere: R·π/180.
        let degree = Geodesy.earthRadiusM * Double.pi / 180
        #expect(abs(Geodesy.distanceM(0, 0, 1, 0) - degree) < 1e-6)
        #expect(abs(Geodesy.distanceM(0, 0, 0, 1) - degree) < 1e-6)  // on the equator
        #expect(Geodesy.distanceM(48.8584, 2.2945, 48.8584, 2.2945) == 0)
        // Paris (Eiffel Tower) to London (Big Ben): about 340.6 km on the sphere.
        let paris = Geodesy.distanceM(48.858370, 2.294481, 51.500729, -0.124625)
        #expect(abs(paris - 340_600) < 1_000, "\(paris)")
        // Antipodes: half the circumference, no NaN from rounding past 1.
        #expect(abs(Geodesy.distanceM(0, 0, 0, 180) - Geodesy.earthRadiusM * Double.pi) < 1e-6)
        // The generator's offset agrees with the distance to a millimetre over 1 km.
        let north = Geodesy.offset(latitude: 48.8, longitude: 2.3, northM: 1000, eastM: 0)
        #expect(abs(Geodesy.distanceM(48.8, 2.3, north.latitude, north.longitude) - 1000) < 0.001)
    }
}
