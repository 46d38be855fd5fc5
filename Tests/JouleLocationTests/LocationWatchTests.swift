import JouleHardware
import JouleLocation
import JouleWire
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

    @Test func distanceFilterDeliversTheFirstFixThenEveryFixFarEnough() async throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        let summary = await LocationWatch.run(WatchRequest(accuracyM: 100, distanceM: 95), receiver: &receiver, emit: log.emit)
        // 95 m is reached every 10 fixes (100 m); the 150 m fix at 25 s does not count.
        #expect(seconds(log.locations.map(\.0)) == [0, 10, 20, 30, 40, 50, 60])
        #expect(log.locations.allSatisfy { $0.1 == nil })
        #expect(log.receiverTurns.map(\.1) == [TrackBuilder.t0, TrackBuilder.micros(60)])
        #expect(summary == LocationSummary(receiverOnMicros: 60_000_000, spanMicros: 60_000_000, fixes: 61))
        #expect(log.summary == summary)
    }

    @Test func anInaccurateFixIsNotDeliveredAndDoesNotMoveTheReference() async throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 100, distanceM: 245), receiver: &receiver, emit: log.emit)
        // 250 m at 25 s is the inaccurate fix: the next 245 m mark is 25 s, so 26 s is delivered.
        #expect(seconds(log.locations.map(\.0)) == [0, 26, 51])
    }

    @Test func withoutADistanceEveryAccurateFixIsDelivered() async throws {
        var receiver = try Self.walk().receiver(ttff: 3)
        let log = EventLog()
        let summary = await LocationWatch.run(WatchRequest(accuracyM: 10), receiver: &receiver, emit: log.emit)
        #expect(log.locations.count == 57)  // 3...60 less the one at 25 s
        #expect(summary?.fixes == 58)
        #expect(summary?.receiverOnMicros == 60_000_000)
    }

    @Test func deferredBatchesByDistanceAndStop() async throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 100, deferDistanceM: 195), receiver: &receiver, emit: log.emit)
        let batches = log.events.compactMap { if case .deferred(let fixes, let reason) = $0 { (fixes, reason) } else { nil } }
        #expect(batches.map(\.1) == [.distance, .distance, .stop])
        // 195 m is reached 20 fixes (200 m) after a batch's first; the rest goes at the end.
        #expect(batches.map { seconds($0.0).first! } == [0, 21, 42])
        #expect(batches.map { seconds($0.0).last! } == [20, 41, 60])
        #expect(batches.map(\.0.count) == [21, 20, 19])  // the second lacks the inaccurate fix at 25 s
        #expect(log.locations.isEmpty)
    }

    @Test func deferredBatchesByTime() async throws {
        var receiver = try Self.walk().receiver()
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 100, deferTimeMicros: 15_000_000), receiver: &receiver, emit: log.emit)
        let batches = log.events.compactMap { if case .deferred(let fixes, let reason) = $0 { (fixes, reason) } else { nil } }
        #expect(batches.map(\.1) == [.time, .time, .time, .stop])
        #expect(batches.map { seconds($0.0) }.map { [$0.first!, $0.last!] } == [[0, 15], [16, 31], [32, 47], [48, 60]])
    }

    @Test func anEmptySourceHasNoSession() async throws {
        var receiver = try TrackBuilder().receiver()
        let log = EventLog()
        #expect(await LocationWatch.run(WatchRequest(), receiver: &receiver, emit: log.emit) == nil)
        #expect(log.events.isEmpty)
    }
}

/// Auto-pause on a generated day out: a walk, a long stop, a walk again.
@Suite struct LocationAutoPauseTests {
    /// 0…60 s: 10 m/s north (to 600 m); 61…999 s: standing at 600 m; 1000…1300 s: 10 m/s again.
    static func walkStopWalk() -> TrackBuilder {
        var track = TrackBuilder()
        for t in 0...1300 {
            let north = t <= 60 ? Double(t) * 10 : t < 1000 ? 600 : 600 + Double(t - 1000) * 10
            track.fix(at: Double(t), northM: north, eph: 4)
        }
        return track
    }

    static func seconds(_ micros: Int64) -> Int64 { (micros - TrackBuilder.t0) / 1_000_000 }

    /// Each event as a word and its time in seconds after t0.
    static func timeline(_ events: [LocationEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(seconds(time))"
            case .paused(let time): "paused \(seconds(time))"
            case .resumed(let time): "resumed \(seconds(time))"
            default: nil
            }
        }
    }

    @Test func pausesAfterStandingStillProbesAndResumesWhenMoved() async throws {
        var receiver = try Self.walkStopWalk().receiver()
        let log = EventLog()
        let request = WatchRequest(accuracyM: 100, pauseWhenStationaryMicros: 120_000_000, probeMicros: 300_000_000)
        let summary = await LocationWatch.run(request, receiver: &receiver, emit: log.emit)
        // The anchor last moves at 60 s (600 m); 120 s later the receiver goes off. Probes at
        // 480 and 780 s find it where it stopped; at 1080 s it is 800 m on.
        #expect(Self.timeline(log.events) == [
            "on 0", "paused 180", "off 180", "on 480", "off 480", "on 780", "off 780", "on 1080", "resumed 1080", "off 1300",
        ])
        // Probe fixes are not delivered; the one that resumes is, and updates go on from it.
        let delivered = log.locations.map { Self.seconds($0.0.timeMicros) }
        #expect(delivered == Array(0...180) + Array(1080...1300))
        #expect(summary == LocationSummary(receiverOnMicros: 400_000_000, spanMicros: 1_300_000_000, fixes: 181 + 2 + 221))
    }

    @Test func probesPayTheTTFF() async throws {
        var receiver = try Self.walkStopWalk().receiver(ttff: 5)
        let log = EventLog()
        let request = WatchRequest(accuracyM: 100, pauseWhenStationaryMicros: 120_000_000, probeMicros: 300_000_000)
        let summary = await LocationWatch.run(request, receiver: &receiver, emit: log.emit)
        // The first fix comes at 5 s, so the walk's anchors are 5, 8, … 59 (600 m at 60 s is
        // only 10 m from 590): standing counts from 59 s. Each probe waits 5 s for its fix.
        #expect(Self.timeline(log.events) == [
            "on 0", "paused 179", "off 179", "on 479", "off 484", "on 779", "off 784", "on 1079", "resumed 1084", "off 1300",
        ])
        #expect(summary == LocationSummary(receiverOnMicros: (179 + 5 + 5 + 221) * 1_000_000, spanMicros: 1_300_000_000, fixes: 175 + 2 + 217))
    }

    @Test func theInputEndingWhilePausedEndsTheSessionThere() async throws {
        var builder = TrackBuilder()
        for t in 0...400 { builder.fix(at: Double(t), northM: 0, eph: 4) }
        var receiver = try builder.receiver()
        let log = EventLog()
        let request = WatchRequest(pauseWhenStationaryMicros: 60_000_000, probeMicros: 300_000_000)
        let summary = await LocationWatch.run(request, receiver: &receiver, emit: log.emit)
        // Paused at 60 s, probe at 360 s (still), the next probe at 660 s is past the input.
        #expect(Self.timeline(log.events) == ["on 0", "paused 60", "off 60", "on 360", "off 360"])
        #expect(summary == LocationSummary(receiverOnMicros: 60_000_000, spanMicros: 400_000_000, fixes: 62))
    }

    @Test func pausedAndResumedJSON() async {
        #expect(JSONValue.object(LocationEvent.paused(timeMicros: TrackBuilder.t0).jsonObject).serialized
            == #"{"event":"paused","reason":"stationary","time":"2024-05-01T12:00:00Z"}"#)
        #expect(JSONValue.object(LocationEvent.resumed(timeMicros: TrackBuilder.t0).jsonObject).serialized
            == #"{"event":"resumed","reason":"moved","time":"2024-05-01T12:00:00Z"}"#)
    }
}

/// Give up and retry: a receiver that cannot reach the accuracy goes off, and tries again later.
@Suite struct LocationGiveUpTests {
    static func timeline(_ events: [LocationEvent]) -> [String] {
        events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(LocationAutoPauseTests.seconds(time))"
            case .gaveUp(let time, let best, let retryAt):
                "gaveUp \(LocationAutoPauseTests.seconds(time)) best \(best.map { "\($0)" } ?? "nil") retry \(LocationAutoPauseTests.seconds(retryAt))"
            default: nil
            }
        }
    }

    @Test func givesUpWithoutAGoodFixAndRetriesLater() async throws {
        // 500 m until 99 s (no improvement), then 5 m.
        var builder = TrackBuilder()
        for t in 0...200 { builder.fix(at: Double(t), northM: Double(t), eph: t < 100 ? 500 : 5) }
        var receiver = try builder.receiver()
        let log = EventLog()
        let request = WatchRequest(accuracyM: 50, giveUpMicros: 30_000_000, retryMicros: 60_000_000)
        let summary = await LocationWatch.run(request, receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == ["on 0", "gaveUp 30 best 500.0 retry 90", "off 30", "on 90", "off 200"])
        #expect(log.locations.map { LocationAutoPauseTests.seconds($0.0.timeMicros) } == Array(100...200))
        // On 0…30 and 90…200 s; fixes 0…29 and 90…200.
        #expect(summary == LocationSummary(receiverOnMicros: 140_000_000, spanMicros: 200_000_000, fixes: 30 + 111))
    }

    @Test func aSteadyTenPercentImprovementKeepsTrying() async throws {
        // 1 % better each second: 10 % every 11 s, inside a 30 s give-up.
        var builder = TrackBuilder()
        for t in 0...200 { builder.fix(at: Double(t), eph: 1000 * Double.pow(0.99, t)) }
        var receiver = try builder.receiver()
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 10, giveUpMicros: 30_000_000), receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == ["on 0", "off 200"])
    }

    @Test func aSlowImprovementGivesUp() async throws {
        // 0.2 % better each second: 10 % takes 53 s, more than the 30 s give-up.
        var builder = TrackBuilder()
        for t in 0...100 { builder.fix(at: Double(t), eph: 1000 * Double.pow(0.998, t)) }
        var receiver = try builder.receiver()
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 10, giveUpMicros: 30_000_000), receiver: &receiver, emit: log.emit)
        let events = Self.timeline(log.events)
        #expect(events.first == "on 0")
        #expect(events.dropFirst().first?.hasPrefix("gaveUp 30 best 94") == true, "\(events)")  // 1000·0.998^29 ≈ 943.6
        #expect(events.dropFirst(2).first == "off 30")
        // The retry (300 s later) is past the input's end: the session ends off.
        #expect(events.count == 3)
    }

    @Test func stillnessStartsOverAfterARetry() async throws {
        // Standing still throughout: 300 m accuracy until 99 s, then 5 m.
        var builder = TrackBuilder()
        for t in 0...200 { builder.fix(at: Double(t), eph: t < 100 ? 300 : 5) }
        var receiver = try builder.receiver()
        let log = EventLog()
        let request = WatchRequest(
            accuracyM: 20, pauseWhenStationaryMicros: 60_000_000, giveUpMicros: 30_000_000, retryMicros: 20_000_000)
        await LocationWatch.run(request, receiver: &receiver, emit: log.emit)
        let timeline: [String] = log.events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(LocationAutoPauseTests.seconds(time))"
            case .gaveUp(let time, _, _): "gaveUp \(LocationAutoPauseTests.seconds(time))"
            case .paused(let time): "paused \(LocationAutoPauseTests.seconds(time))"
            default: nil
            }
        }
        // Without the restart, the first fix after the retry at 50 s would be 60 s after the
        // first anchor (0 s) by 60 s, and pause while nothing had been heard for 20 s.
        #expect(timeline == ["on 0", "gaveUp 30", "off 30", "on 50", "gaveUp 80", "off 80", "on 100", "paused 160", "off 160"])
    }

    @Test func gaveUpJSON() async {
        let event = LocationEvent.gaveUp(timeMicros: TrackBuilder.t0, bestAccuracyM: 250, retryAtMicros: TrackBuilder.micros(300))
        #expect(JSONValue.object(event.jsonObject).serialized
            == #"{"event":"gaveUp","time":"2024-05-01T12:00:00Z","bestAccuracyM":250,"retryAt":"2024-05-01T12:05:00Z"}"#)
        let unknown = LocationEvent.gaveUp(timeMicros: TrackBuilder.t0, bestAccuracyM: nil, retryAtMicros: TrackBuilder.t0)
        #expect(unknown.jsonObject["bestAccuracyM"] == .null)
    }
}
