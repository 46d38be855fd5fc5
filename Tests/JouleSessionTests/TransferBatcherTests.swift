import JouleTransferQueue
import JouleSession
import Testing

/// The batch rule alone, with the times given: nothing is reported while one of the user's
/// transfers is live, and then only after `quiet` seconds without another finishing.
struct TransferBatcherTests {
    /// A transfer's signals up to its end, as the daemon sends them.
    func run(_ batcher: inout TransferBatcher, _ id: String, ending state: String, at time: Double) {
        batcher.observe(.changed(id: id, state: "running"), at: time - 1)
        batcher.observe(.changed(id: id, state: state), at: time)
        batcher.observe(.finished(id: id, state: state, path: "/tmp/\(id)"), at: time)
    }

    @Test func aBurstIsOneBatchOnceTheQueueHasDrainedAndBeenQuiet() {
        var batcher = TransferBatcher(quiet: 2)
        batcher.observe(.changed(id: "a", state: "waiting"), at: 0)
        batcher.observe(.changed(id: "b", state: "waiting"), at: 0)
        run(&batcher, "a", ending: "completed", at: 10)
        #expect(batcher.deadline == nil, "b is still waiting")
        #expect(batcher.fire(at: 100) == nil)
        run(&batcher, "b", ending: "failed", at: 11)
        #expect(batcher.deadline == 13)
        #expect(batcher.fire(at: 12.9) == nil)
        // Queued within the quiet time: the batch waits for it too.
        batcher.observe(.changed(id: "c", state: "waiting"), at: 12)
        #expect(batcher.deadline == nil)
        run(&batcher, "c", ending: "completed", at: 20)
        #expect(batcher.deadline == 22)
        #expect(batcher.fire(at: 22) == .transferBatchFinished(completed: 2, failed: 1))
        #expect(batcher.deadline == nil && batcher.fire(at: 100) == nil, "reported once")
        // The next batch counts afresh.
        batcher.observe(.changed(id: "d", state: "waiting"), at: 30)
        run(&batcher, "d", ending: "completed", at: 31)
        #expect(batcher.fire(at: 40) == .transferBatchFinished(completed: 1, failed: 0))
    }

    @Test func aTransferCountsOnceAndCancelledOnesNotAtAll() {
        var batcher = TransferBatcher(quiet: 2)
        run(&batcher, "a", ending: "completed", at: 5)
        batcher.observe(.finished(id: "a", state: "completed", path: "/tmp/a"), at: 6)
        run(&batcher, "x", ending: "cancelled", at: 7)
        #expect(batcher.deadline == 9, "a cancel counts in neither number, but the quiet time runs from it")
        #expect(batcher.fire(at: 8.9) == nil)
        #expect(batcher.fire(at: 9) == .transferBatchFinished(completed: 1, failed: 0), "a repeat counts once")
        run(&batcher, "y", ending: "cancelled", at: 9)
        #expect(batcher.deadline == nil && batcher.fire(at: 100) == nil, "only cancelled: nothing to report")
    }

    @Test func retryingAndSuspendedHoldTheBatchOpen() {
        var batcher = TransferBatcher(quiet: 2)
        run(&batcher, "a", ending: "completed", at: 1)
        batcher.observe(.changed(id: "b", state: "retrying"), at: 1.5)
        #expect(batcher.deadline == nil)
        batcher.observe(.changed(id: "b", state: "suspended"), at: 2)
        #expect(batcher.fire(at: 50) == nil)
        run(&batcher, "b", ending: "completed", at: 60)
        #expect(batcher.fire(at: 62) == .transferBatchFinished(completed: 2, failed: 0))
    }

    @Test func theQuietTimeRunsFromTheLastEndNotTheLastCount() {
        var batcher = TransferBatcher(quiet: 2)
        batcher.observe(.changed(id: "slow", state: "running"), at: 0)
        run(&batcher, "quick", ending: "failed", at: 1)
        // Long after: the slow one's final TransferChanged, its TransferFinished not yet in.
        batcher.observe(.changed(id: "slow", state: "completed"), at: 10)
        #expect(batcher.deadline == 12)
        #expect(batcher.fire(at: 10) == nil, "not without the slow one's count")
        batcher.observe(.finished(id: "slow", state: "completed", path: "/tmp/slow"), at: 10.1)
        #expect(batcher.fire(at: 12.1) == .transferBatchFinished(completed: 1, failed: 1))
    }

    @Test func theDaemonsListReplacesWhatTheSignalsSaid() {
        var batcher = TransferBatcher(quiet: 2)
        // Added before the agent listened: only List tells it is live.
        batcher.reset(live: ["early"], at: 0)
        run(&batcher, "a", ending: "completed", at: 1)
        #expect(batcher.deadline == nil)
        batcher.reset(live: ["early"], at: 4)
        #expect(batcher.deadline == nil, "still live")
        // A final signal missed (the daemon restarted meanwhile): List says nothing is live,
        // and the quiet time runs from then.
        batcher.reset(live: [], at: 5)
        #expect(batcher.deadline == 7)
        #expect(batcher.fire(at: 7) == .transferBatchFinished(completed: 1, failed: 0))
    }
}
