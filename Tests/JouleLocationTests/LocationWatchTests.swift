import JouleHardware
import JouleLocation
import Testing

/// Standard updates on generated tracks: the distance filter, the accuracy filter, deferred
/// batches, with exact event times and the receiver's on-time.
@Suite struct LocationWatchTests {
    /// A walk north, 10 m a second for 60 s, with one inaccurate fix at 25 s.
    static func walk() -> TrackBuilder {
        var track = TrackBuilder()
        for i in 0...60 { track.fix(at: Double(i), northM: Double(i) * 10, eph: i == 25 ? 150 : 4) }
        return track
    }

    func seconds(_ fixes: [LocationFix]) -> [Int64] { fixes.map { ($0.timeMicros - TrackBuilder.t0) / 1_000_000 } }

    @Test func distanceFilterDeliversTheFirstFixThenEveryFixFarEnough() throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        let summary = LocationWatch.run(WatchRequest(accuracyM: 100, distanceM: 95), receiver: &receiver, emit: log.emit)
        // 95 m is reached every 10 fixes (100 m); the 150 m fix at 25 s does not count.
        #expect(seconds(log.locations.map(\.0)) == [0, 10, 20, 30, 40, 50, 60])
        #expect(log.locations.allSatisfy { $0.1 == nil })
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(60)])
        #expect(summary == LocationSummary(receiverOnMicros: 60_000_000, spanMicros: 60_000_000, fixes: 61))
        #expect(log.summary == summary)
    }

    @Test func anInaccurateFixIsNotDeliveredAndDoesNotMoveTheReference() throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        LocationWatch.run(WatchRequest(accuracyM: 100, distanceM: 245), receiver: &receiver, emit: log.emit)
        // 250 m at 25 s is the inaccurate fix: the next 245 m mark is 25 s, so 26 s is delivered.
        #expect(seconds(log.locations.map(\.0)) == [0, 26, 51])
    }

    @Test func withoutADistanceEveryAccurateFixIsDelivered() throws {
        var receiver = try Self.walk().receiver(ttff: 3)
        let log = EventLog()
        let summary = LocationWatch.run(WatchRequest(accuracyM: 10), receiver: &receiver, emit: log.emit)
        #expect(log.locations.count == 57)  // 3...60 less the one at 25 s
        #expect(summary?.fixes == 58)
        #expect(summary?.receiverOnMicros == 60_000_000)
    }

    @Test func deferredBatchesByDistanceAndStop() throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        LocationWatch.run(WatchRequest(accuracyM: 100, deferDistanceM: 195), receiver: &receiver, emit: log.emit)
        let batches = log.events.compactMap { if case .deferred(let fixes, let reason) = $0 { (fixes, reason) } else { nil } }
        #expect(batches.map(\.1) == [.distance, .distance, .stop])
        // 195 m is reached 20 fixes (200 m) after a batch's first; the rest goes at the end.
        #expect(batches.map { seconds($0.0).first! } == [0, 21, 42])
        #expect(batches.map { seconds($0.0).last! } == [20, 41, 60])
        #expect(batches.map(\.0.count) == [21, 20, 19])  // the second lacks the inaccurate fix at 25 s
        #expect(log.locations.isEmpty)
    }

    @Test func deferredBatchesByTime() throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        LocationWatch.run(WatchRequest(accuracyM: 100, deferTimeMicros: 15_000_000), receiver: &receiver, emit: log.emit)
        let batches = log.events.compactMap { if case .deferred(let fixes, let reason) = $0 { (fixes, reason) } else { nil } }
        #expect(batches.map(\.1) == [.time, .time, .time, .stop])
        #expect(batches.map { seconds($0.0) }.map { [$0.first!, $0.last!] } == [[0, 15], [16, 31], [32, 47], [48, 60]])
    }

    @Test func anEmptySourceHasNoSession() throws {
        var receiver = try TrackBuilder().receiver()
        let log = EventLog()
        #expect(LocationWatch.run(WatchRequest(), receiver: &receiver, emit: log.emit) == nil)
        #expect(log.events.isEmpty)
    }
}
