import JouleHardware
import JouleLocation
import Testing

/// `requestLocation` on generated tracks: receiver on at the start, off at the first fix good
/// enough; at the timeout the best fix with accuracyMet false; no fix at all is an error.
@Suite struct LocationOnceTests {
    /// Accuracy improving by 10 m a second from 60 m: 60, 50, 40, 30, 20, 10, 5.
    static func improving() -> TrackBuilder {
        var track = TrackBuilder()
        for (i, eph) in [60.0, 50, 40, 30, 20, 10, 5].enumerated() { track.fix(at: Double(i), northM: Double(i), eph: eph) }
        return track
    }

    @Test func offAtTheFirstFixThatMeetsTheAccuracy() async throws {
        var receiver = try Self.improving().receiver()
        let log = EventLog()
        let result = try await LocationOnce.run(OnceRequest(accuracyM: 25), receiver: &receiver, emit: log.emit)
        #expect(result.accuracyMet)
        #expect(result.fix.horizontalAccuracyM == 20)
        #expect(result.fix.timeMicros == TrackBuilder.micros(4))
        #expect(log.receiverTurns.map(\.0) == [true, false])
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(4)])
        #expect(log.summary == LocationSummary(receiverOnMicros: 4_000_000, spanMicros: 4_000_000, fixes: 5))
        // location, then the receiver off, then the summary
        guard log.events.count == 4, case .location(_, true) = log.events[1], case .receiver(false, _) = log.events[2] else {
            Issue.record("events: \(log.events)")
            return
        }
    }

    @Test func ttffDelaysTheAnswerAndCountsAsOnTime() async throws {
        var receiver = try Self.improving().receiver(ttff: 2)
        let log = EventLog()
        let result = try await LocationOnce.run(OnceRequest(accuracyM: 100), receiver: &receiver, emit: log.emit)
        #expect(result.fix.horizontalAccuracyM == 40)  // the first at or after 2 s
        #expect(log.summary == LocationSummary(receiverOnMicros: 2_000_000, spanMicros: 2_000_000, fixes: 1))
    }

    @Test func atTheTimeoutTheMostAccurateFixWithAccuracyNotMet() async throws {
        // 200, 150, 120 (the best before the timeout), then 90 at 30 s: too late.
        var builder = TrackBuilder()
        for (t, eph) in [(0.0, 200.0), (10, 150), (20, 120), (25, nil), (30, 90), (40, 5)] as [(Double, Double?)] {
            builder.fix(at: t, eph: eph)
        }
        var receiver = try builder.receiver()
        let log = EventLog()
        let result = try await LocationOnce.run(OnceRequest(accuracyM: 100, timeoutMicros: 30_000_000), receiver: &receiver, emit: log.emit)
        #expect(!result.accuracyMet)
        #expect(result.fix.horizontalAccuracyM == 120 && result.fix.timeMicros == TrackBuilder.micros(20))
        #expect(log.locations.count == 1 && log.locations[0].1 == false)
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(30)])
        #expect(log.summary == LocationSummary(receiverOnMicros: 30_000_000, spanMicros: 30_000_000, fixes: 4))
    }

    @Test func anUnknownAccuracyNeverMeetsTheRequestButIsBetterThanNothing() async throws {
        var builder = TrackBuilder()
        builder.fix(at: 0, eph: nil)
        builder.fix(at: 1, eph: nil)
        var receiver = try builder.receiver()
        let log = EventLog()
        let result = try await LocationOnce.run(OnceRequest(accuracyM: 1000), receiver: &receiver, emit: log.emit)
        #expect(!result.accuracyMet && result.fix.timeMicros == TrackBuilder.t0)
        // The input ended at 1 s, before the timeout: the receiver is off then.
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(1)])
    }

    @Test func noFixAtAllNamesTheSource() async throws {
        var builder = TrackBuilder()
        builder.lines.append(#"{"class":"TPV","mode":1,"time":"2024-05-01T12:00:00Z"}"#)
        var receiver = try builder.receiver()
        let log = EventLog()
        await #expect(throws: LocationError.noFix(source: "replay:track.ndjson")) {
            try await LocationOnce.run(OnceRequest(), receiver: &receiver, emit: log.emit)
        }
        #expect(LocationError.noFix(source: "replay:track.ndjson").description == "no fix from replay:track.ndjson")
        #expect(!LocationError.noFix(source: "x").isInputError)
    }

    @Test func noFixBeforeTheTimeoutStillTurnsTheReceiverOff() async throws {
        // Fixes exist, but the TTFF puts them all past the timeout.
        var receiver = try Self.improving().receiver(ttff: 60)
        let log = EventLog()
        await #expect(throws: LocationError.self) {
            try await LocationOnce.run(OnceRequest(timeoutMicros: 5_000_000), receiver: &receiver, emit: log.emit)
        }
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(5)])
        #expect(log.summary == LocationSummary(receiverOnMicros: 5_000_000, spanMicros: 5_000_000, fixes: 0))
    }

    @Test func aFixedSourceAnswersAtOnce() async throws {
        let now = TrackBuilder.t0
        var receiver = FixedReceiver(latitude: 52.52, longitude: 13.405, accuracyM: 3, now: now)
        let log = EventLog()
        let result = try await LocationOnce.run(OnceRequest(), receiver: &receiver, emit: log.emit)
        #expect(result.accuracyMet && result.fix.timeMicros == now && result.fix.source == "fixed")
        #expect(log.summary == LocationSummary(receiverOnMicros: 0, spanMicros: 0, fixes: 1))

        var unknown = FixedReceiver(latitude: 52.52, longitude: 13.405, accuracyM: nil, now: now, ttffMicros: 1_500_000)
        let second = try await LocationOnce.run(OnceRequest(), receiver: &unknown, emit: { _ in })
        #expect(!second.accuracyMet && second.fix.timeMicros == now + 1_500_000)
    }
}
