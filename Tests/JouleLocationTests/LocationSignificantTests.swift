import JouleHardware
import JouleLocation
import JouleWire
import Testing

/// The significant-change service on generated tracks: 500 m from the last report, at most
/// once every 300 s, with 1 km accuracy, and the receiver off between samples.
@Suite struct LocationSignificantTests {
    static func timeline(_ events: [LocationEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(LocationVisitsTests.seconds(time))"
            case .significantChange(let fix): "change \(LocationVisitsTests.seconds(fix.timeMicros))"
            case .policy: "policy"
            default: nil
            }
        }
    }

    /// 1 m/s north, eph 50. The first fix is reported; no report can come before 300 s, so the
    /// receiver is off until then (the 500 m circle alone would wake it at 15 s). From 300 s the
    /// device is 200 m inside the circle: (200 − 50) / 30 = 5 s, so it samples every 5 s and
    /// reports 500 s (500 m). Then off to 800 s (300 m from that report), and 5 s samples
    /// again, reporting 1000 s.
    @Test func reportsEveryFiveHundredMetres() async throws {
        var track = TrackBuilder()
        for t in 0...1000 { track.fix(at: Double(t), northM: Double(t), eph: 50) }
        var receiver = try track.receiver()
        let log = EventLog()
        let summary = await LocationSignificant.run(receiver: &receiver, emit: log.emit)
        let timeline = Self.timeline(log.events)
        #expect(timeline.filter { $0.hasPrefix("change") } == ["change 0", "change 500", "change 1000"])
        var expected = ["on 0", "change 0", "off 0"]
        for t in stride(from: 300, to: 500, by: 5) { expected += ["on \(t)", "off \(t)"] }
        expected += ["on 500", "change 500", "off 500"]
        for t in stride(from: 800, to: 1000, by: 5) { expected += ["on \(t)", "off \(t)"] }
        expected += ["on 1000", "change 1000", "off 1000"]
        #expect(timeline == expected)
        // Every sample's fix comes as the receiver goes on: no on-time; 1 + 41 + 41 fixes.
        #expect(summary == LocationSummary(receiverOnMicros: 0, spanMicros: 1_000_000_000, fixes: 83))
    }

    /// 20 m/s: 500 m is reached in 25 s, but reports come at most once every 300 s.
    @Test func atMostOnceEveryFiveMinutes() async throws {
        var track = TrackBuilder()
        for t in 0...1000 { track.fix(at: Double(t), northM: Double(t) * 20, eph: 50) }
        var receiver = try track.receiver(ttff: 2)
        let log = EventLog()
        let summary = await LocationSignificant.run(receiver: &receiver, emit: log.emit)
        // With a 2 s TTFF: each wake at 300 s after a report gives a fix 2 s later, 600 m on.
        #expect(Self.timeline(log.events) == [
            "on 0", "change 2", "off 2", "on 302", "change 304", "off 304", "on 604", "change 606", "off 606", "on 906",
            "change 908", "off 908",
        ])
        #expect(summary == LocationSummary(receiverOnMicros: 8_000_000, spanMicros: 1_000_000_000, fixes: 4))
    }

    /// Fixes coarser than 1 km are not reported, and keep the receiver on (no report yet).
    @Test func asksForOneKilometre() async throws {
        var track = TrackBuilder()
        for t in 0...20 { track.fix(at: Double(t), eph: t < 10 ? 2000 : 900) }
        var receiver = try track.receiver()
        let log = EventLog()
        let summary = await LocationSignificant.run(receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == ["on 0", "change 10", "off 10"])
        #expect(summary == LocationSummary(receiverOnMicros: 10_000_000, spanMicros: 20_000_000, fixes: 11))
        #expect(SignificantRequest() == SignificantRequest(distanceM: 500, intervalMicros: 300_000_000, sampling: SamplingRequest(accuracyM: 1000)))
    }

    @Test func significantChangeJSON() async {
        let fix = LocationFix(timeMicros: TrackBuilder.t0, latitude: 1.5, longitude: 2.5, horizontalAccuracyM: 800, source: "replay")
        #expect(LocationEvent.significantChange(fix).json
            == #"{"event":"significantChange","fix":{"time":"2024-05-01T12:00:00Z","latitude":1.5,"longitude":2.5,"horizontalAccuracyM":800,"altitudeM":null,"verticalAccuracyM":null,"speedMps":null,"courseDeg":null,"source":"replay"}}"#)
    }
}
