import JouleHardware
import JouleLocation
import JouleWire
import Testing

/// A live-like receiver on the wall clock: fixes come when the test sends them; every turn and
/// accuracy request is recorded.
final class ScriptedReceiver: LocationReceiver, Sendable {
    let fixes = DeadlineMailbox<LocationFix>()
    let log = Locked<[String]>([])
    let on = Locked(false)

    var name: String { "scripted" }
    var startTime: Int64? { WallClock.micros() }
    var endTime: Int64? { nil }

    func turnOn(at time: Int64) async {
        on.withLock { $0 = true }
        log.withLock { $0.append("on") }
    }

    func turnOff(at time: Int64) async {
        on.withLock { $0 = false }
        log.withLock { $0.append("off") }
    }

    func sleep(until time: Int64) async { await turnOff(at: time) }

    func requestAccuracy(_ metres: Double) async { log.withLock { $0.append("accuracy \(Int(metres))") } }

    func next(before deadline: Int64?) async -> ReceiverRead {
        let instant = deadline.map { ContinuousClock.now + .microseconds(max(0, $0 - WallClock.micros())) }
        guard let fix = await fixes.next(before: instant) else { return .deadline }
        return .fix(fix)
    }

    /// A fix now, `northM` north of a point, with `accuracy`.
    func send(northM: Double = 0, accuracy: Double) {
        let point = Geodesy.offset(latitude: 48.858_370, longitude: 2.294_481, northM: northM, eastM: 0)
        fixes.push(LocationFix(timeMicros: WallClock.micros(), latitude: point.latitude, longitude: point.longitude, horizontalAccuracyM: accuracy, source: "scripted"))
    }
}

@Suite struct LocationHubTests {
    final class Deliveries: Sendable {
        let items = Locked<[LocationHubDelivery]>([])
        func add(_ item: LocationHubDelivery) { items.withLock { $0.append(item) } }
        var all: [LocationHubDelivery] { items.withLock { $0 } }
    }

    /// Waits (up to 10 s) for `condition`; the hub's loop runs on the wall clock.
    func waitFor(_ what: String, _ condition: () async -> Bool) async throws {
        let start = ContinuousClock.now
        while !(await condition()) {
            if ContinuousClock.now - start > .seconds(10) { Issue.record("timed out waiting for \(what)"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func hub(_ receiver: ScriptedReceiver, _ deliveries: Deliveries) async -> LocationHub<ScriptedReceiver> {
        let hub = LocationHub<ScriptedReceiver>(open: { receiver }, deliver: deliveries.add)
        await hub.start()
        return hub
    }

    @Test func theAccuracyFollowsTheFinerClientAndTheReceiverGoesOffWhenBothStop() async throws {
        let receiver = ScriptedReceiver()
        let deliveries = Deliveries()
        let hub = await hub(receiver, deliveries)
        #expect(await hub.receiverOn == false)
        let coarse = await hub.startUpdates(owner: ":1.1", WatchRequest(accuracyM: 1000))
        try await waitFor("on at 1 km") { await hub.requestedAccuracyM == 1000 && receiver.on.withLock { $0 } }
        let fine = await hub.startUpdates(owner: ":1.2", WatchRequest(accuracyM: 10))
        try await waitFor("10 m") { await hub.requestedAccuracyM == 10 }
        receiver.send(accuracy: 8)
        try await waitFor("both clients get the fix") {
            deliveries.all.filter { if case .location = $0 { true } else { false } }.count == 2
        }
        #expect(await hub.stop(owner: ":1.2", handle: fine))
        try await waitFor("back to 1 km") { await hub.requestedAccuracyM == 1000 }
        // Another owner cannot stop a handle it does not hold.
        #expect(await hub.stop(owner: ":1.9", handle: coarse) == false)
        #expect(await hub.stop(owner: ":1.1", handle: coarse))
        try await waitFor("off") { await hub.receiverOn == false && !receiver.on.withLock { $0 } }
        #expect(receiver.log.withLock { $0 } == ["accuracy 1000", "on", "accuracy 10", "accuracy 1000", "off"])
        await hub.shutdown()
    }

    @Test func aOneShotRequestEndsAtTheFirstAccurateFixAndTheReceiverGoesOff() async throws {
        let receiver = ScriptedReceiver()
        let hub = await hub(receiver, Deliveries())
        let answer = Task { try await hub.requestLocation(owner: ":1.3", accuracyM: 50, timeoutMicros: 20_000_000) }
        try await waitFor("on") { receiver.on.withLock { $0 } }
        receiver.send(accuracy: 200)
        receiver.send(northM: 5, accuracy: 30)
        let result = try await answer.value
        #expect(result.accuracyMet && result.fix.horizontalAccuracyM == 30)
        try await waitFor("off") { !receiver.on.withLock { $0 } }
        await hub.shutdown()
    }

    @Test func aOneShotRequestTimesOutWithTheBestFix() async throws {
        let receiver = ScriptedReceiver()
        let hub = await hub(receiver, Deliveries())
        let answer = Task { try await hub.requestLocation(owner: ":1.3", accuracyM: 10, timeoutMicros: 500_000) }
        try await waitFor("on") { receiver.on.withLock { $0 } }
        receiver.send(accuracy: 200)
        let result = try await answer.value
        #expect(!result.accuracyMet && result.fix.horizontalAccuracyM == 200)
        await hub.shutdown()
    }

    @Test func aClientThatLeavesTheBusEndsItsHandlesAndTheReceiverGoesOff() async throws {
        let receiver = ScriptedReceiver()
        let hub = await hub(receiver, Deliveries())
        _ = await hub.startUpdates(owner: ":1.4", WatchRequest())
        _ = await hub.addRegion(owner: ":1.4", CircularRegion(name: "home", latitude: 48.858_370, longitude: 2.294_481, radiusM: 150))
        try await waitFor("on") { receiver.on.withLock { $0 } }
        await hub.stop(owner: ":1.4")
        #expect(await hub.handleCount() == 0)
        try await waitFor("off") { !receiver.on.withLock { $0 } }
        await hub.shutdown()
    }

    @Test func aRegionAloneSamplesThenSleepsAndReportsItsState() async throws {
        let receiver = ScriptedReceiver()
        let deliveries = Deliveries()
        let hub = await hub(receiver, deliveries)
        // 3 km from the region's edge at 30 m/s: the receiver may stay off about 100 s.
        _ = await hub.addRegion(owner: ":1.5", CircularRegion(name: "far", latitude: 48.858_370, longitude: 2.294_481, radiusM: 150))
        try await waitFor("on for a sample") { receiver.on.withLock { $0 } }
        receiver.send(northM: 3_150, accuracy: 20)
        try await waitFor("the state, then off") {
            !receiver.on.withLock { $0 } && deliveries.all.contains { if case .regionExited(_, _, "far", _) = $0 { true } else { false } }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!receiver.on.withLock { $0 }, "the receiver woke long before the boundary could be reached")
        await hub.shutdown()
    }

    @Test func lowPowerModeRelaxesRunningUpdatesToAKilometreAndBack() async throws {
        let receiver = ScriptedReceiver()
        let hub = await hub(receiver, Deliveries())
        _ = await hub.startUpdates(owner: ":1.6", WatchRequest(accuracyM: 10))
        try await waitFor("10 m") { await hub.requestedAccuracyM == 10 }
        await hub.setPolicy(LocationPolicy(lowPowerMode: true))
        try await waitFor("1 km in Low Power Mode") { await hub.requestedAccuracyM == 1000 }
        await hub.setPolicy(LocationPolicy(thermalState: .fair))
        try await waitFor("10 m again") { await hub.requestedAccuracyM == 10 }
        await hub.shutdown()
    }

    @Test func updatesPauseWhileStillProbeAndResumeWhenMoved() async throws {
        let receiver = ScriptedReceiver()
        let deliveries = Deliveries()
        let hub = await hub(receiver, deliveries)
        _ = await hub.startUpdates(owner: ":1.7", WatchRequest(pauseWhenStationaryMicros: 300_000, probeMicros: 600_000))
        try await waitFor("on") { receiver.on.withLock { $0 } }
        receiver.send(accuracy: 5)
        try await Task.sleep(for: .milliseconds(350))
        receiver.send(northM: 3, accuracy: 5)
        try await waitFor("paused: off") { !receiver.on.withLock { $0 } }
        try await waitFor("a probe: on again") { receiver.on.withLock { $0 } }
        receiver.send(northM: 4, accuracy: 5)  // still there: not delivered, off until the next probe
        try await waitFor("off after the probe") { !receiver.on.withLock { $0 } }
        try await waitFor("the next probe") { receiver.on.withLock { $0 } }
        receiver.send(northM: 250, accuracy: 5)  // moved: resumed and delivered
        try await waitFor("the moved fix delivered") {
            deliveries.all.filter { if case .location = $0 { true } else { false } }.count == 3
        }
        #expect(receiver.on.withLock { $0 }, "resumed updates keep the receiver on")
        await hub.shutdown()
    }
}
