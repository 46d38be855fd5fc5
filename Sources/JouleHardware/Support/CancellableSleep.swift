/// `Task.sleep` for timers that are cancelled more often than they fire (a scheduler's next
/// due time, a timeout raced against an answer). The runtime's sleep keeps its timer queued
/// until the deadline after a cancel: in the daemon, 2,000 transfers added and cancelled
/// left 4,000 hour-long timers, 0.7 MiB, until their hour was up (heaptrack, issue 19's soak).
/// Under joule's PoolExecutor the timer goes when the task is cancelled; elsewhere (tests,
/// other hosts of the library) this is `Task.sleep`.
public enum CancellableSleep {
    public static func sleep(for duration: Duration) async throws {
        if PoolExecutor.installed {
            try await PoolExecutor.shared.sleep(for: duration)
        } else {
            try await Task.sleep(for: duration)
        }
    }
}
