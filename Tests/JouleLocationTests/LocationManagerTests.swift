import JouleHardware
import JouleLocation
import Testing

/// A receiver that gives one fix and then never another: its `next` waits until its task is
/// cancelled. Every call is written to `calls`, so a test can wait for the turn-off.
struct NeverEndingReceiver: LocationReceiver {
    let calls: AsyncStream<String>.Continuation
    private var delivered = false

    init(calls: AsyncStream<String>.Continuation) { self.calls = calls }

    var name: String { "never-ending" }
    var startTime: Int64? { TrackBuilder.t0 }
    var endTime: Int64? { nil }

    mutating func turnOn(at time: Int64) async { calls.yield("on") }
    mutating func turnOff(at time: Int64) async { calls.yield("off") }
    mutating func sleep(until time: Int64) async { calls.yield("sleep") }

    mutating func next(before deadline: Int64?) async -> ReceiverRead {
        if !delivered {
            delivered = true
            return .fix(LocationFix(timeMicros: TrackBuilder.t0, latitude: 48.85837, longitude: 2.294481, horizontalAccuracyM: 5, source: "test"))
        }
        calls.yield("waiting")
        // Waits for cancellation, not for time: Task.sleep returns at once when cancelled.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        return .end
    }
}

/// `LocationManager`: the engines behind a Swift API, and cancelling stops the receiver.
@Suite struct LocationManagerTests {
    @Test func requestLocationOnAReplay() async throws {
        let track = LocationOnceTests.improving()
        let manager = LocationManager { () throws(LocationError) in try track.receiver() }
        let answer = try await manager.requestLocation(OnceRequest(accuracyM: 25))
        #expect(answer.accuracyMet && answer.fix.horizontalAccuracyM == 20)
    }

    @Test func aSourceThatCannotOpenThrows() async {
        let manager = LocationManager(source: .replay(path: "/nonexistent/joule-track.ndjson"))
        await #expect(throws: LocationError.self) { try await manager.requestLocation() }
        await #expect(throws: LocationError.self) { try await manager.significantChanges() }
        // No gpsd at that address: the call throws naming it, before any sequence exists.
        let live = LocationManager(source: .gpsd, gpsd: GPSDAddress(host: "127.0.0.1", port: 1))
        await #expect(throws: LocationError.unavailable(message: "gpsd at 127.0.0.1:1: connect: Connection refused (ECONNREFUSED)")) {
            try await live.startUpdating()
        }
    }

    /// Each sequence gives what its engine emits, in order, and ends with the input.
    @Test func sequencesGiveTheEnginesEvents() async throws {
        var builder = TrackBuilder()
        for t in 0...200 { builder.fix(at: Double(t), northM: Double(t) * 10, eph: 10) }
        let track = builder
        let regions = [CircularRegion(
            name: "cafe", latitude: LocationMonitorTests.region("c", northM: 1000, radiusM: 100).latitude,
            longitude: TrackBuilder.origin.longitude, radiusM: 100)]
        let manager = LocationManager(policy: LocationPolicy(lowPowerMode: true)) { () throws(LocationError) in try track.receiver() }

        var direct = try track.receiver()
        let expected = EventLog()
        await LocationMonitor.run(MonitorRequest(regions: regions), receiver: &direct, emit: expected.emit)
        var monitored: [LocationEvent] = []
        for await event in try await manager.monitor(regions: regions) { monitored.append(event) }
        #expect(monitored == expected.events)
        #expect(!monitored.contains { if case .policy = $0 { true } else { false } })  // monitor keeps its request

        var updates: [LocationEvent] = []
        for await event in try await manager.startUpdating(WatchRequest(distanceM: 500)) { updates.append(event) }
        #expect(updates.first == .policy(LocationPolicy(lowPowerMode: true)))
        #expect(updates.compactMap { if case .location(let fix, _) = $0 { LocationVisitsTests.seconds(fix.timeMicros) } else { nil } } == [0, 50, 100, 150, 200] as [Int64])

        var changes: [LocationEvent] = []
        for await event in try await manager.significantChanges() { changes.append(event) }
        #expect(changes.compactMap { if case .significantChange(let fix) = $0 { LocationVisitsTests.seconds(fix.timeMicros) } else { nil } } == [0] as [Int64])  // the track ends before 300 s

        var visits: [LocationEvent] = []
        for await event in try await manager.visits() { visits.append(event) }
        #expect(!visits.contains { if case .visitArrival = $0 { true } else { false } })
        if case .summary = visits.last {} else { Issue.record("no summary: \(visits)") }
    }

    /// A consumer's task cancelled while the receiver waits for a fix that never comes: the
    /// engine's task is cancelled, its read ends, and the receiver is turned off.
    @Test(.timeLimit(.minutes(1)), arguments: ["watch", "monitor", "visits", "significant"])
    func cancellingTheConsumerTurnsTheReceiverOff(engine: String) async throws {
        let (calls, recorder) = AsyncStream.makeStream(of: String.self)
        let manager = LocationManager { () throws(LocationError) in NeverEndingReceiver(calls: recorder) }
        let region = CircularRegion(name: "far", latitude: 0, longitude: 0, radiusM: 100)
        let events = switch engine {
        case "watch": try await manager.startUpdating()
        case "monitor": try await manager.monitor(regions: [region], sampling: SamplingRequest(accuracyM: 1))
        case "visits": try await manager.visits()
        default: try await manager.significantChanges(SignificantRequest(sampling: SamplingRequest(accuracyM: 1)))
        }
        let consumer = Task {
            var seen = 0
            for await _ in events { seen += 1 }
            return seen
        }
        var log: [String] = []
        for await call in calls {
            log.append(call)
            if call == "waiting" { consumer.cancel() }
            if call == "off" { break }
        }
        #expect(log == ["on", "waiting", "off"])
        #expect(await consumer.value >= 1)  // the receiver's "on" at least
    }
}
