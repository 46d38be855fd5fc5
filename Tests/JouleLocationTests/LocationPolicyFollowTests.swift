import JouleEnergy
import JouleHardware
import JouleLocation
import Testing

/// `watch` on a live source follows the policy as it changes: here a replay whose receiver
/// flips the feed when it delivers the fix at 10 s, as the daemon's signal would.
@Suite struct LocationPolicyFollowTests {
    struct FlippingReceiver: LocationReceiver {
        var base: ReplayReceiver
        let feed: LocationPolicyFeed
        let at: Int64
        let to: LocationPolicy

        var name: String { base.name }
        var startTime: Int64? { base.startTime }
        var endTime: Int64? { base.endTime }
        mutating func turnOn(at time: Int64) async { await base.turnOn(at: time) }
        mutating func turnOff(at time: Int64) async { await base.turnOff(at: time) }
        mutating func sleep(until time: Int64) async { await base.sleep(until: time) }
        mutating func next(before deadline: Int64?) async -> ReceiverRead {
            let read = await base.next(before: deadline)
            if case .fix(let fix) = read, fix.timeMicros >= at { feed.set(to) }
            return read
        }
    }

    @Test func lowPowerModeDuringASessionRelaxesTheFixesFromThenOn() async throws {
        var builder = TrackBuilder()
        // Every 5 s, 600 m apart, each only 400 m accurate: too coarse for 100 m, fine for 1 km.
        for step in 0..<6 { builder.fix(at: Double(step) * 5, northM: Double(step) * 600, eph: 400) }
        let feed = LocationPolicyFeed(.normal)
        var receiver = FlippingReceiver(
            base: try builder.receiver(), feed: feed, at: TrackBuilder.micros(10), to: LocationPolicy(lowPowerMode: true))
        let log = EventLog()
        await LocationWatch.run(WatchRequest(accuracyM: 100), policy: feed, receiver: &receiver, emit: log.emit)
        // No policy event at the start (normal). The change arrives with the 10 s fix, so that
        // fix is the first judged under it: announced, and from it on the 400 m fixes are delivered.
        let policies = log.events.compactMap { if case .policy(let p) = $0 { p } else { nil } }
        #expect(policies == [LocationPolicy(lowPowerMode: true)])
        let delivered = log.locations.map { ($0.0.timeMicros - TrackBuilder.t0) / 1_000_000 }
        #expect(delivered == [10, 15, 20, 25], "\(delivered)")
    }
}
