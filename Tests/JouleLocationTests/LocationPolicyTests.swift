import JouleEnergy
import JouleHardware
import JouleLocation
import JouleWire
import Testing

/// Low Power Mode and heat: `watch`, `visits` and `significant` relax (accuracy at least 1 km,
/// deferral and probe intervals doubled, a `policy` event first); `once` and `monitor` do not
/// take a policy at all.
@Suite struct LocationPolicyTests {
    static let lowPower = LocationPolicy(lowPowerMode: true, thermalState: .nominal)

    @Test func whenItRelaxes() async {
        #expect(!LocationPolicy.normal.relaxes)
        #expect(!LocationPolicy(thermalState: .fair).relaxes)
        #expect(LocationPolicy(thermalState: .serious).relaxes && LocationPolicy(thermalState: .critical).relaxes)
        #expect(Self.lowPower.relaxes)
    }

    @Test func whatItRelaxes() async {
        let request = WatchRequest(
            accuracyM: 50, distanceM: 10, deferDistanceM: 200, deferTimeMicros: 60_000_000, pauseWhenStationaryMicros: 120_000_000,
            probeMicros: 300_000_000, giveUpMicros: 30_000_000, retryMicros: 100_000_000)
        #expect(LocationPolicy.normal.applied(to: request) == request)
        #expect(Self.lowPower.applied(to: request) == WatchRequest(
            accuracyM: 1000, distanceM: 10, deferDistanceM: 400, deferTimeMicros: 120_000_000, pauseWhenStationaryMicros: 120_000_000,
            probeMicros: 600_000_000, giveUpMicros: 30_000_000, retryMicros: 100_000_000))
        // A coarser request stays as coarse.
        #expect(Self.lowPower.applied(to: WatchRequest(accuracyM: 3000)).accuracyM == 3000)
        #expect(Self.lowPower.applied(to: VisitsRequest()).sampling.accuracyM == 1000)
        #expect(Self.lowPower.applied(to: VisitsRequest()).radiusM == 100)
        #expect(Self.lowPower.applied(to: SignificantRequest()) == SignificantRequest())
    }

    @Test func policyJSON() async {
        #expect(LocationEvent.policy(LocationPolicy(lowPowerMode: false, thermalState: .serious)).json
            == #"{"event":"policy","lowPowerMode":false,"thermalState":"serious"}"#)
        #expect(LocationEvent.policy(Self.lowPower).json == #"{"event":"policy","lowPowerMode":true,"thermalState":"nominal"}"#)
    }

    /// The walk, stop and walk of the auto-pause tests, paused after 120 s still: probes every
    /// 300 s normally (480, 780, 1080 s, which resumes); in Low Power Mode every 600 s (780 s,
    /// still; 1380 s is past the input), and `policy` comes first.
    @Test func lowPowerModeDoublesTheProbeAndPrintsThePolicy() async throws {
        let request = WatchRequest(accuracyM: 100, pauseWhenStationaryMicros: 120_000_000, probeMicros: 300_000_000)
        var normal = try LocationAutoPauseTests.walkStopWalk().receiver()
        let normalLog = EventLog()
        await LocationWatch.run(request, policy: .normal, receiver: &normal, emit: normalLog.emit)
        #expect(LocationAutoPauseTests.timeline(normalLog.events) == [
            "on 0", "paused 180", "off 180", "on 480", "off 480", "on 780", "off 780", "on 1080", "resumed 1080", "off 1300",
        ])
        #expect(!normalLog.events.contains { if case .policy = $0 { true } else { false } })

        var relaxed = try LocationAutoPauseTests.walkStopWalk().receiver()
        let log = EventLog()
        let summary = await LocationWatch.run(request, policy: LocationPolicy(thermalState: .critical), receiver: &relaxed, emit: log.emit)
        #expect(log.events.first == .policy(LocationPolicy(thermalState: .critical)))
        #expect(LocationAutoPauseTests.timeline(log.events) == ["on 0", "paused 180", "off 180", "on 780", "off 780"])
        #expect(summary == LocationSummary(receiverOnMicros: 180_000_000, spanMicros: 1_300_000_000, fixes: 182))
    }

    /// Fixes at ±300 m: not delivered as asked (100 m), delivered in Low Power Mode (1 km);
    /// deferral by 10 s becomes 20 s.
    @Test func lowPowerModeAcceptsCoarserFixesAndDefersLonger() async throws {
        var track = TrackBuilder()
        for t in 0...40 { track.fix(at: Double(t), northM: Double(t) * 10, eph: 300) }
        let request = WatchRequest(accuracyM: 100, deferTimeMicros: 10_000_000)
        var normal = try track.receiver()
        let normalLog = EventLog()
        await LocationWatch.run(request, policy: .normal, receiver: &normal, emit: normalLog.emit)
        #expect(!normalLog.events.contains { if case .deferred = $0 { true } else { false } })

        var relaxed = try track.receiver()
        let log = EventLog()
        await LocationWatch.run(request, policy: Self.lowPower, receiver: &relaxed, emit: log.emit)
        let batches = log.events.compactMap { if case .deferred(let fixes, let reason) = $0 { (fixes.count, reason) } else { nil } }
        #expect(batches.map(\.0) == [21, 20] && batches.map(\.1) == [.time, .stop])
        #expect(log.events.first == .policy(Self.lowPower))
    }

    /// Standing still at ±500 m: no visit as asked (100 m), a visit in Low Power Mode.
    @Test func visitsRelaxTheirAccuracy() async throws {
        var track = TrackBuilder()
        for t in 0...400 { track.fix(at: Double(t), eph: 500) }
        var normal = try track.receiver()
        let normalLog = EventLog()
        await LocationVisits.run(VisitsRequest(), receiver: &normal, emit: normalLog.emit)
        #expect(LocationVisitsTests.timeline(normalLog.events) == ["on 0", "off 400"])

        var relaxed = try track.receiver()
        let log = EventLog()
        await LocationVisits.run(VisitsRequest(), policy: Self.lowPower, receiver: &relaxed, emit: log.emit)
        // The visit's circle (100 m) is within the accuracy: each sample sleeps the minimum.
        #expect(Array(LocationVisitsTests.timeline(log.events).prefix(5)) == ["policy", "on 0", "arrival 300 since 0", "off 300", "on 305"])
    }

    @Test func significantPrintsThePolicyAndKeepsItsKilometre() async throws {
        var track = TrackBuilder()
        for t in 0...10 { track.fix(at: Double(t), eph: 900) }
        var receiver = try track.receiver()
        let log = EventLog()
        await LocationSignificant.run(policy: LocationPolicy(thermalState: .serious), receiver: &receiver, emit: log.emit)
        #expect(LocationSignificantTests.timeline(log.events) == ["policy", "on 0", "change 0", "off 0"])
    }

    @Test func anEmptySourcePrintsNothing() async throws {
        var receiver = try TrackBuilder().receiver()
        let log = EventLog()
        #expect(await LocationWatch.run(WatchRequest(), policy: Self.lowPower, receiver: &receiver, emit: log.emit) == nil)
        #expect(log.events.isEmpty)
    }
}
