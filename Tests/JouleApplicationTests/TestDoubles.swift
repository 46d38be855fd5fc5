@testable import JouleApplication
import JouleWire

/// Bounded wait: polls `condition` until it holds, failing after `timeout` instead of hanging.
func eventually(
    _ what: String, timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw FakeJoule.Failure.timedOut(what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A delegate that logs each callback with the state the app reported at that moment; the
/// tests' expiration handlers write to the same log so the order between them shows.
final class RecordingDelegate: JouleApplicationDelegate {
    private let log = Locked<[String]>([])

    var entries: [String] { log.withLock { $0 } }

    func append(_ entry: String) { log.withLock { $0.append(entry) } }

    func applicationWillResignActive(_ application: JouleApplication) {
        append("willResignActive:\(application.applicationState.rawValue)")
    }
    func applicationDidEnterBackground(_ application: JouleApplication) {
        append("didEnterBackground:\(application.applicationState.rawValue)")
    }
    func applicationWillEnterForeground(_ application: JouleApplication) {
        append("willEnterForeground:\(application.applicationState.rawValue)")
    }
    func applicationDidBecomeActive(_ application: JouleApplication) {
        append("didBecomeActive:\(application.applicationState.rawValue)")
    }
    func applicationBackgroundTimeWillExpire(_ application: JouleApplication) {
        append("backgroundTimeWillExpire:\(application.applicationState.rawValue)")
    }
}

/// Drains one `events` stream in a task and remembers what came and whether it finished.
final class EventCollector: Sendable {
    private let received = Locked<[LifecycleEvent]>([])
    private let done = Locked(false)

    init(_ stream: AsyncStream<LifecycleEvent>) {
        Task { [self] in
            for await event in stream { received.withLock { $0.append(event) } }
            done.withLock { $0 = true }
        }
    }

    var events: [LifecycleEvent] { received.withLock { $0 } }
    var finished: Bool { done.withLock { $0 } }
}
