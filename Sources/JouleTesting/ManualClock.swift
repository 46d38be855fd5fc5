import JouleWire
import JouleHardware
import JouleEnergy

/// A clock that moves only when told to: for tests, and for replays driven by capture time.
/// Sleepers wake in deadline order as `advance` passes their deadlines.
public final class ManualClock: JouleClock {
    private struct Sleeper {
        var id: Int
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Double
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Locked<State>

    public init(now: Double = 1_700_000_000) {
        state = Locked(State(now: now))
    }

    public func now() -> Double { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock: tests wait for an engine to be back asleep
    /// before advancing again, instead of waiting for real time.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Double) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `span`, waking every sleeper whose deadline has passed.
    public func advance(by span: Duration) {
        advance(to: now() + span)
    }

    /// Moves time to `instant` (never backwards), waking due sleepers in deadline order.
    public func advance(to instant: Double) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks sleep on this clock, looking every millisecond
    /// with Task.sleep (a spin of yields would hold a cooperative thread). Gives up after
    /// `timeout` seconds of real time so a stuck engine fails a test instead of hanging it.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Double = 20) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(1)) { sleeperCount >= count }
    }
}
