import Glibc
@testable import JouleWire
@testable import JouleHardware
import JouleTesting
import Testing

/// PoolExecutor as a task executor (the test process keeps the platform's default executor;
/// `joule` installs the pool as its default, and the CLI tests run that).
@Suite struct PoolExecutorTests {
    actor Tally {
        private(set) var count = 0
        func add(_ n: Int) -> Int {
            count += n
            return count
        }
    }

    /// The thread a job runs on.
    static func onPool() -> UInt { Syscalls.currentThread() }

    @Test func manyTasksRunToTheEndWithinTheWorkerBound() async {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 3)
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<200 {
                group.addTask(executorPreference: pool) { _ = await tally.add(i) }
            }
        }
        #expect(await tally.count == (0..<200).reduce(0, +))
        #expect(pool.workers >= 1 && pool.workers <= 3)
    }

    /// A chain of awaits that resume one another is run by the worker that enqueues them,
    /// without waking a second one.
    @Test func aChainOfResumptionsStaysOnOneWorker() async {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 4)
        let tally = Tally()
        let threads = await Task(executorPreference: pool) {
            var seen = Set<UInt>()
            for _ in 0..<500 {
                _ = await tally.add(1)
                seen.insert(Self.onPool())
            }
            return seen
        }.value
        #expect(await tally.count == 500)
        #expect(threads.count == 1, "ran on \(threads.count) threads")
        #expect(pool.workers == 1)
    }

    /// Sleeps wake in deadline order, each after its deadline, on the pool's own timers.
    @Test func sleepsEndInDeadlineOrderAfterTheirDeadlines() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 2)
        let order = Locked<[Int]>([])
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Duration.self) { group in
            for milliseconds in [60, 20, 40] {
                group.addTask(executorPreference: pool) {
                    try await Task.sleep(for: .milliseconds(milliseconds))
                    order.withLock { $0.append(milliseconds) }
                    return start.duration(to: clock.now) - .milliseconds(milliseconds)
                }
            }
            for try await late in group { #expect(late >= .zero) }
        }
        #expect(order.withLock { $0 } == [20, 40, 60])
        #expect(pool.scheduledTimers == 3)
    }

    /// With nothing queued and no timer, the workers sleep: no wakeup at all while idle.
    @Test func anIdlePoolDoesNotWake() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 2)
        await Task(executorPreference: pool) {}.value
        let before = pool.wakeups
        try await Task.sleep(for: .milliseconds(300))
        #expect(pool.wakeups == before)
    }

    /// A sleep of Int64.max nanoseconds stays asleep (its deadline saturates instead of
    /// wrapping into the past) until it is cancelled.
    @Test func aSleepForeverDoesNotEndEarly() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 2)
        let ended = Locked(false)
        let sleeper = Task(executorPreference: pool) {
            try? await Task.sleep(nanoseconds: UInt64(Int64.max))
            ended.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(ended.withLock { $0 } == false)
        sleeper.cancel()
        await sleeper.value
        #expect(ended.withLock { $0 })
    }

    /// A timer's job that blocks in the kernel does not hold up the next timer while another
    /// worker is idle: that worker takes over the waiting. The blocker waits (blocking its
    /// worker, up to 30 s) for the second timer's job to have run, so a loaded machine only
    /// slows the test down; a pool that left the waiting to the blocked worker fails it.
    @Test func aBlockedTimerJobDoesNotHoldUpTheNextTimer() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 3)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 { group.addTask(executorPreference: pool) {} }
        }
        let secondRan = Locked(false)
        let blockerSawSecond = Locked(false)
        await withTaskGroup(of: Void.self) { group in
            group.addTask(executorPreference: pool) {
                try? await Task.sleep(for: .milliseconds(20))
                // A read that blocks, on this worker, until the next timer has fired elsewhere.
                for _ in 0..<3000 where !secondRan.withLock({ $0 }) { usleep(10_000) }
                blockerSawSecond.withLock { $0 = secondRan.withLock { $0 } }
            }
            group.addTask(executorPreference: pool) {
                try? await Task.sleep(for: .milliseconds(120))
                secondRan.withLock { $0 = true }
            }
        }
        #expect(blockerSawSecond.withLock { $0 })
    }

    /// The pool's own sleep ends after its deadline, in order with runtime sleeps, and leaves
    /// no timer behind.
    @Test func aPoolSleepEndsAfterItsDeadline() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 2)
        let clock = ContinuousClock()
        let late = try await Task(executorPreference: pool) {
            let start = clock.now
            try await pool.sleep(for: .milliseconds(50))
            return start.duration(to: clock.now) - .milliseconds(50)
        }.value
        #expect(late >= .zero)
        #expect(pool.pendingTimers == 0)
    }

    /// A cancelled pool sleep throws at once and takes its timer with it, where the runtime's
    /// Task.sleep leaves its own queued until the deadline (here an hour away).
    @Test func aCancelledSleepLeavesNoTimer() async throws {
        let pool = PoolExecutor(name: "test-pool", maximumWorkers: 2)
        let runtime = Task(executorPreference: pool) { try await Task.sleep(for: .seconds(3600)) }
        let sleepers = (0..<50).map { _ in Task(executorPreference: pool) { try await pool.sleep(for: .seconds(3600)) } }
        #expect(await eventually { pool.pendingTimers == 51 })
        for sleeper in sleepers { sleeper.cancel() }
        for sleeper in sleepers {
            await #expect(throws: CancellationError.self) { try await sleeper.value }
        }
        runtime.cancel()
        _ = try? await runtime.value
        #expect(pool.pendingTimers == 1, "the runtime's timer stays; the pool's 50 are gone")
        // Cancelled before it sleeps: no timer at all.
        let early = Task(executorPreference: pool) {
            withUnsafeCurrentTask { $0?.cancel() }
            try await pool.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(pool.pendingTimers == 1)
    }
}
