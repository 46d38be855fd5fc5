import JouleHardware
import JouleLocation
import JouleWire
import Testing

/// Visits on generated tracks: the anchor, the arrival after the dwell with the mean as the
/// centre, the departure beyond the margin with the last fix inside as its time, and the
/// receiver sampling during the visit.
@Suite struct LocationVisitsTests {
    static func seconds(_ micros: Int64) -> Int64 { (micros - TrackBuilder.t0) / 1_000_000 }

    /// North at 12 m/s for 83 s (to 996 m), standing at 1000 m from 84 to 699 s (±2 m east,
    /// alternating each second), north at 10 m/s again from 700 to 800 s.
    static func walkStayWalk() -> TrackBuilder {
        var track = TrackBuilder()
        for t in 0...800 {
            if t < 84 {
                track.fix(at: Double(t), northM: Double(t) * 12, eph: 5)
            } else if t < 700 {
                track.fix(at: Double(t), northM: 1000, eastM: t % 2 == 0 ? 2 : -2, eph: 5)
            } else {
                track.fix(at: Double(t), northM: 1000 + Double(t - 700) * 10, eph: 5)
            }
        }
        return track
    }

    static func timeline(_ events: [LocationEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(seconds(time))"
            case .visitArrival(let visit, let fix): "arrival \(seconds(fix.timeMicros)) since \(seconds(visit.arrivalMicros))"
            case .visitDeparture(let visit, let fix):
                "departure \(seconds(fix.timeMicros)) left \(visit.departureMicros.map { String(seconds($0)) } ?? "nil")"
            case .policy: "policy"
            default: nil
            }
        }
    }

    /// The walk's anchor moves every 9 s (108 m > 100 m): 0, 9, … 81 (972 m). From 81 s every
    /// fix stays within 100 m of it, so 381 s arrives, since 81 s; the centre is the mean of
    /// fixes 81…381: (972 + 984 + 996 + 298 × 1000) / 301 m north, 0 east (the ±2 m cancel).
    /// During the visit the receiver samples every 5 s (the minimum: every fix is within 98 m of
    /// the edge); the walk away is seen at 701 (10 m), 706 (60 m, the last within 100 m), 711
    /// (110 m: beyond the radius, within its 20 m margin) and 716 (160 m): the departure, with
    /// 706 as its time. The anchor restarts at 716, and the receiver stays on to the end.
    @Test func arrivalAndDepartureWithExactTimesAndCentre() async throws {
        var receiver = try Self.walkStayWalk().receiver()
        let log = EventLog()
        let summary = await LocationVisits.run(VisitsRequest(), receiver: &receiver, emit: log.emit)
        let timeline = Self.timeline(log.events)
        var expected = ["on 0", "arrival 381 since 81", "off 381"]
        for t in stride(from: 386, through: 711, by: 5) { expected += ["on \(t)", "off \(t)"] }
        expected += ["on 716", "departure 716 left 706", "off 800"]
        #expect(timeline == expected)
        let arrivals = log.events.compactMap { if case .visitArrival(let visit, _) = $0 { visit } else { nil } }
        let departures = log.events.compactMap { if case .visitDeparture(let visit, _) = $0 { visit } else { nil } }
        let centre = Geodesy.offset(
            latitude: TrackBuilder.origin.latitude, longitude: TrackBuilder.origin.longitude, northM: (972 + 984 + 996 + 298 * 1000) / 301,
            eastM: 0)
        let visit = try #require(arrivals.first)
        #expect(abs(visit.latitude - centre.latitude) < 1e-9 && abs(visit.longitude - centre.longitude) < 1e-9, "\(visit)")
        #expect(visit.radiusM == 100 && visit.arrivalMicros == TrackBuilder.micros(81) && visit.departureMicros == nil)
        var left = visit
        left.departureMicros = TrackBuilder.micros(706)
        #expect(departures == [left])
        // On 0…381 and 716…800; 382 fixes, 67 samples (386…716), 84 after.
        #expect(summary == LocationSummary(receiverOnMicros: 465_000_000, spanMicros: 800_000_000, fixes: 382 + 67 + 84))
    }

    @Test func aStopShorterThanTheDwellIsNoVisit() async throws {
        var track = TrackBuilder()
        // Stands at 500 m for 4 minutes, then goes on: the anchor at 50 s never gets 300 s.
        for t in 0...600 { track.fix(at: Double(t), northM: t < 50 ? Double(t) * 10 : t < 290 ? 500 : 500 + Double(t - 290) * 10, eph: 5) }
        var receiver = try track.receiver()
        let log = EventLog()
        let summary = await LocationVisits.run(VisitsRequest(), receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == ["on 0", "off 600"])
        #expect(summary?.receiverOnMicros == 600_000_000)
    }

    /// A fix beyond the radius but within radius + max(20 m, accuracy) does not depart, nor does
    /// a coarse one (ignored); with a 60 s dwell and a 50 m radius.
    @Test func theDepartureMarginAndCoarseFixes() async throws {
        var track = TrackBuilder()
        for t in 0...120 { track.fix(at: Double(t), eph: 5) }          // arrival at 60 s
        track.fix(at: 125, northM: 65, eph: 5)                           // 65 m: within 50 + 20
        track.fix(at: 130, northM: 400, eph: 500)                        // coarser than 100 m: ignored
        track.fix(at: 135, northM: 30, eph: 5)                           // back inside: the last within
        track.fix(at: 140, northM: 90, eph: 30)                          // 90 m, beyond 50 + max(20, 30): departs
        var receiver = try track.receiver()
        let log = EventLog()
        await LocationVisits.run(VisitsRequest(radiusM: 50, minDwellMicros: 60_000_000), receiver: &receiver, emit: log.emit)
        let events = Self.timeline(log.events).filter { !$0.hasPrefix("on") && !$0.hasPrefix("off") }
        #expect(events == ["arrival 60 since 0", "departure 140 left 135"])
    }

    @Test func visitJSON() async {
        let visit = Visit(latitude: 48.85837, longitude: 2.294481, radiusM: 100, arrivalMicros: TrackBuilder.t0)
        let fix = LocationFix(timeMicros: TrackBuilder.t0, latitude: 0, longitude: 0, source: "replay")
        #expect(LocationEvent.visitArrival(visit, fix: fix).json
            == #"{"event":"visitArrival","visit":{"latitude":48.85837,"longitude":2.294481,"radiusM":100,"arrival":"2024-05-01T12:00:00Z","departure":null}}"#)
        var left = visit
        left.departureMicros = TrackBuilder.micros(600)
        #expect(LocationEvent.visitDeparture(left, fix: fix).json
            == #"{"event":"visitDeparture","visit":{"latitude":48.85837,"longitude":2.294481,"radiusM":100,"arrival":"2024-05-01T12:00:00Z","departure":"2024-05-01T12:10:00Z"}}"#)
        #expect(left.text(clock: { String(($0 - TrackBuilder.t0) / 1_000_000) }) == "48.858370, 2.294481 (100 m) from 0 to 600")
    }
}
