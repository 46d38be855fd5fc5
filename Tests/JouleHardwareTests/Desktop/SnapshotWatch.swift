import JouleHardware
import JouleTesting
import JouleWire

/// Reads a focus source's stream in a task of its own and keeps the latest snapshot and how
/// the stream ended, for `eventually` to look at.
final class SnapshotWatch: Sendable {
    private let state = Locked<(latest: DesktopSnapshot?, count: Int, end: Result<Void, any Error>?)>((nil, 0, nil))
    private let task: Task<Void, Never>

    init(_ source: any DesktopFocusSource) {
        let state = self.state
        task = Task {
            do {
                for try await snapshot in source.snapshots {
                    state.withLock {
                        $0.latest = snapshot
                        $0.count += 1
                    }
                }
                state.withLock { $0.end = .success(()) }
            } catch {
                state.withLock { $0.end = .failure(error) }
            }
        }
    }

    deinit { task.cancel() }

    var latest: DesktopSnapshot? { state.withLock { $0.latest } }
    var count: Int { state.withLock { $0.count } }
    var end: Result<Void, any Error>? { state.withLock { $0.end } }

    /// Whether the latest snapshot comes to satisfy `condition` within `timeout` seconds.
    func until(timeout: Double = 20, _ condition: @escaping (DesktopSnapshot) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { latest.map(condition) ?? false }
    }

    /// The error the stream ended with, waiting up to `timeout` seconds for the end.
    func failure(timeout: Double = 20) async -> DesktopFocusError? {
        _ = await eventually(timeout: timeout) { end != nil }
        guard case .failure(let error) = end else { return nil }
        return error as? DesktopFocusError
    }
}
