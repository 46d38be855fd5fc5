import JouleWire
import JouleHardware
import JouleEnergy

/// Runs the engine events' slower consequences (workloads, transfers, apps, history: actors
/// that may wait on the disk for fsync'd SQLite commits) in order, on a task of their own. The
/// engine's loop hands each event over and goes on sampling, so a thermal step during a disk
/// stall is still seen and signalled at once; it used to await them, and a GetHistory that
/// flushed rows through a stalled fsync held the engine for as long.
///
/// The watchdog still notices a wedged follower: `backlogAge` says how long the oldest event
/// has waited, and the daemon stops pinging when that passes `WatchdogSec`.
final class DaemonEventFollower: Sendable {
    private let stream: AsyncStream<TimedEvent>
    private let continuation: AsyncStream<TimedEvent>.Continuation
    /// When each event not yet followed was handed over, oldest first.
    private let waiting = Locked<[ContinuousClock.Instant]>([])

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: TimedEvent.self)
    }

    /// Queues `event` (dropped once `finish` was called).
    func submit(_ event: TimedEvent) {
        waiting.withLock { waiting in
            if case .enqueued = continuation.yield(event) { waiting.append(.now) }
        }
    }

    /// Runs `body` for each event, in order, until `finish` and every queued event is done.
    /// Not cancellable: the events queued at shutdown are still recorded.
    func run(_ body: (TimedEvent) async -> Void) async {
        for await event in stream {
            await body(event)
            waiting.withLock { waiting in if !waiting.isEmpty { waiting.removeFirst() } }
        }
    }

    /// No more events: `run` returns once those queued are done.
    func finish() { continuation.finish() }

    /// How long the oldest event not yet followed has waited; zero when none waits.
    var backlogAge: Duration {
        waiting.withLock { waiting in waiting.first.map { ContinuousClock.now - $0 } ?? .zero }
    }
}
