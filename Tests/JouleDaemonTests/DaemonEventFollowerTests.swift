@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleDaemon
import JouleTesting
import Testing

/// The daemon hands engine events to a follower so the engine never waits for the disk: a
/// follower stuck in a slow step (a stalled fsync) leaves `submit` immediate, the events keep
/// their order, the backlog's age grows for the watchdog to see, and finishing still runs
/// every event handed over (none lost at shutdown).
@Suite struct DaemonEventFollowerTests {
    static func event(_ n: Int) -> TimedEvent {
        TimedEvent(
            timestamp: Double(n), event: .thermalStateDidChange(state: n.isMultiple(of: 2) ? .nominal : .fair, previous: .nominal, cause: nil),
            lowPowerMode: false, thermalState: .nominal)
    }

    /// A gate the follower's body waits at, as at a stalled commit.
    final class Gate: Sendable {
        let open = Locked(false)
        let seen = Locked<[Double]>([])
    }

    @Test func aStuckFollowerNeitherBlocksSubmittersNorLosesOrReordersEvents() async throws {
        let follower = DaemonEventFollower()
        let gate = Gate()
        let running = Task {
            await follower.run { event in
                while !gate.open.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
                gate.seen.withLock { $0.append(event.timestamp) }
            }
        }
        #expect(follower.backlogAge == .zero)
        // The engine's loop hands over 50 changes while the first one is stuck: none waits.
        for n in 0..<50 { follower.submit(Self.event(n)) }
        #expect(gate.seen.withLock { $0.isEmpty })
        #expect(try await eventually { follower.backlogAge >= .milliseconds(50) }, "the watchdog sees the backlog age")
        follower.finish()
        follower.submit(Self.event(99))  // after finish: dropped, and not counted as waiting
        gate.open.withLock { $0 = true }
        await running.value
        #expect(gate.seen.withLock { $0 } == (0..<50).map(Double.init))
        #expect(follower.backlogAge == .zero)
    }

    @Test func aFollowerThatKeepsUpHasNoBacklog() async throws {
        let follower = DaemonEventFollower()
        let seen = Locked(0)
        let running = Task { await follower.run { _ in seen.withLock { $0 += 1 } } }
        for n in 0..<10 { follower.submit(Self.event(n)) }
        #expect(try await eventually { seen.withLock { $0 } == 10 })
        #expect(follower.backlogAge == .zero)
        follower.finish()
        await running.value
    }
}
