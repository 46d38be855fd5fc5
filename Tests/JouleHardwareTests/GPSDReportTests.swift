import JouleHardware
import Testing

/// gpsd's TPV lines as `gpspipe -w` writes them, decoded into fixes; every refusal names the
/// line and the key.
@Suite struct GPSDReportTests {
    /// A 3D fix from gpsd 3.22 (gpspipe -w), abridged to the keys that matter.
    static let tpv3D = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T12:00:01.500Z","ept":0.005,"lat":51.500729,"lon":-0.124625,"altHAE":48.2,"altMSL":2.5,"alt":2.5,"epx":3.1,"epy":4.2,"epv":8.5,"track":91.25,"speed":1.3,"climb":0.0,"eps":0.6,"eph":5.25}"#

    func decode(_ line: String, number: Int = 7) throws(GPSDReportError) -> LocationFix? {
        try GPSDReport.decode(line: line, lineNumber: number)
    }

    func error(_ line: String, number: Int = 7) -> GPSDReportError? {
        do throws(GPSDReportError) {
            _ = try decode(line, number: number)
            return nil
        } catch { return error }
    }

    @Test func threeDimensionalFix() throws {
        let fix = try #require(try decode(Self.tpv3D))
        #expect(fix.timeMicros == 1_714_564_801_500_000)
        #expect(fix.latitude == 51.500729 && fix.longitude == -0.124625)
        #expect(fix.horizontalAccuracyM == 5.25)
        #expect(fix.altitudeM == 48.2)  // altHAE before alt
        #expect(fix.verticalAccuracyM == 8.5)
        #expect(fix.speedMps == 1.3 && fix.courseDeg == 91.25)
        #expect(fix.source == "gpsd")
    }

    @Test func altFallsBackWhenThereIsNoAltHAE() throws {
        let fix = try #require(try decode(#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"alt":10.5}"#))
        #expect(fix.altitudeM == 10.5)
        #expect(fix.timeMicros == 1_714_564_800_000_000)
    }

    @Test func unknownValuesAreNilNeverZero() throws {
        let fix = try #require(try decode(#"{"class":"TPV","mode":2,"time":"2024-05-01T12:00:00.000Z","lat":-33.9,"lon":151.2}"#))
        #expect(fix.horizontalAccuracyM == nil && fix.altitudeM == nil && fix.verticalAccuracyM == nil)
        #expect(fix.speedMps == nil && fix.courseDeg == nil)
    }

    @Test func twoDimensionalFixHasNoAltitude() throws {
        // gpsd keeps the last altitude in 2D mode; it is not part of this fix.
        let fix = try #require(try decode(#"{"class":"TPV","mode":2,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"altHAE":99,"epv":3,"eph":12}"#))
        #expect(fix.altitudeM == nil && fix.verticalAccuracyM == nil)
        #expect(fix.horizontalAccuracyM == 12)
    }

    @Test(arguments: [
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0"}]}"#,
        #"{"class":"WATCH","enable":true,"json":true}"#,
        #"{"class":"SKY","device":"/dev/ttyACM0","satellites":[]}"#,
        #"{"class":"PPS","device":"/dev/pps0"}"#,
    ])
    func otherClassesAreSkipped(line: String) throws {
        #expect(try decode(line) == nil)
    }

    @Test func fractionsBeyondMicrosecondsAreCut() {
        #expect(ISO8601UTC.micros("2024-05-01T12:00:00.123456789Z") == 1_714_564_800_123_456)
        #expect(ISO8601UTC.micros("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601UTC.micros("2024-02-29T23:59:59.9Z") == 1_709_251_199_900_000)
        #expect(ISO8601UTC.micros("2000-03-01T00:00:00Z") == 951_868_800_000_000)
    }

    @Test(arguments: [
        "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z",
        "2024-05-01 12:00:00Z", "2024-05-01T12:00:00", "2024-05-01T12:00:00+02:00", "2024-05-01T12:00:00.Z", "yesterday",
        "2024-05-01T12:00:0xZ",
    ])
    func unparsableTimes(text: String) {
        #expect(ISO8601UTC.micros(text) == nil)
        let failure = error(#"{"class":"TPV","mode":3,"time":"\#(text)","lat":1,"lon":2}"#)
        #expect(failure?.key == "time" && failure?.line == 7, "\(String(describing: failure))")
    }

    @Test func oldProtocolSecondsAreAccepted() throws {
        let fix = try #require(try decode(#"{"class":"TPV","mode":2,"time":1714564800.25,"lat":1,"lon":2}"#))
        #expect(fix.timeMicros == 1_714_564_800_250_000)
    }

    /// Every refusal: the line, the key (nil for the line as a whole) and the kind.
    @Test(arguments: [
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2"#, nil, GPSDReportError.Kind.malformed),
        ("not json", nil, .malformed),
        ("[1,2]", nil, .malformed),
        (#"{"mode":3}"#, "class", .invalid),
        (#"{"class":7}"#, "class", .invalid),
        (#"{"class":"TPV","time":"2024-05-01T12:00:00Z","lat":1,"lon":2}"#, "mode", .invalid),
        (#"{"class":"TPV","mode":"3","time":"2024-05-01T12:00:00Z","lat":1,"lon":2}"#, "mode", .invalid),
        (#"{"class":"TPV","mode":4,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2}"#, "mode", .invalid),
        (#"{"class":"TPV","mode":0,"time":"2024-05-01T12:00:00Z"}"#, "mode", .noFix),
        (#"{"class":"TPV","mode":1,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2}"#, "mode", .noFix),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2}"#, "time", .invalid),
        (#"{"class":"TPV","mode":3,"time":null,"lat":1,"lon":2}"#, "time", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lon":2}"#, "lat", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1}"#, "lon", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":90.5,"lon":2}"#, "lat", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":-91,"lon":2}"#, "lat", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":180.01}"#, "lon", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":-200}"#, "lon", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":"NaN","lon":2}"#, "lat", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":null,"lon":2}"#, "lat", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"eph":-1}"#, "eph", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"eph":"5"}"#, "eph", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"track":361}"#, "track", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"speed":-0.5}"#, "speed", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"epv":true}"#, "epv", .invalid),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2,"altHAE":[1]}"#, "altHAE", .invalid),
    ] as [(String, String?, GPSDReportError.Kind)])
    func badInput(line: String, key: String?, kind: GPSDReportError.Kind) throws {
        let failure = try #require(error(line, number: 12))
        #expect(failure.line == 12)
        #expect(failure.key == key)
        #expect(failure.kind == kind)
        #expect(failure.description.hasPrefix("line 12: " + (key.map { "\($0): " } ?? "")), "\(failure)")
    }

    @Test func nonFiniteNumbersAreRefused() {
        // JSON has no NaN or Infinity; a number too large for a double is refused by the
        // parser rather than becoming infinity.
        let failure = error(#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1e999,"lon":2}"#)
        #expect(failure?.kind == .malformed && failure?.line == 7)
    }

    @Test func errorsSayWhatWasWrong() {
        let failure = error(#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":91,"lon":2}"#)
        #expect(failure?.description == "line 7: lat: 91.0 is outside -90...90 degrees")
    }
}
