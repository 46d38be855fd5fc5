import Testing
@testable import JouleHardware

@Suite struct LoopExecutorTests {
    /// An engine-like actor that lives on a loop, as EnergyMonitor does.
    actor Ticker {
        let loop: LoopExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
        private(set) var ticks = 0

        init(loop: LoopExecutor) { self.loop = loop }

        /// Sleeps `count` times for `nanos` each, checking after each wake that it is on the loop.
        func tick(_ count: Int, every nanos: Int64) async throws {
            for _ in 0..<count {
                try await loop.sleep(untilMonotonic: LoopExecutor.monotonicNanos() + nanos)
                loop.checkIsolated()
                ticks += 1
            }
        }
    }

    @Test func anActorOnTheLoopWakesOncePerSleepAndNeverLeavesTheThread() async throws {
        let loop = try LoopExecutor(name: "test-loop")
        defer { loop.stop() }
        let ticker = Ticker(loop: loop)
        try await withTaskExecutorPreference(loop) { try await ticker.tick(20, every: 5_000_000) }
        #expect(await ticker.ticks == 20)
        // One wakeup per timer, plus the few that hand the work over from the test's task.
        #expect(loop.wakeups <= 20 + 4, "\(loop.wakeups) wakeups for 20 sleeps")
    }

    @Test func cancellingASleepEndsItAtOnceWithCancellationError() async throws {
        let loop = try LoopExecutor(name: "test-loop")
        defer { loop.stop() }
        let ticker = Ticker(loop: loop)
        let task = Task { try await ticker.tick(1, every: 3_600_000_000_000) }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await ticker.ticks == 0)
    }

    @Test func timersFireInDeadlineOrderWhateverOrderTheyWereSet() async throws {
        let loop = try LoopExecutor(name: "test-loop")
        defer { loop.stop() }
        // The sleepers live on the loop, so what they record follows the order the loop resumed
        // them in, not how the cooperative pool happened to schedule three tasks.
        let order = Order(loop: loop)
        // The first deadline is a second away: a task of the group that starts late (seen under
        // ThreadSanitizer on a loaded machine, even with deadlines 100 ms apart) must still set
        // its timer before any deadline passes, or the order would test the scheduler, not the loop.
        let start = LoopExecutor.monotonicNanos() + 1_000_000_000
        await withThrowingTaskGroup(of: Void.self) { group in
            for (index, delay) in [200, 0, 100].enumerated() {
                group.addTask { try await order.sleep(index, until: start + Int64(delay) * 1_000_000) }
            }
        }
        #expect(await order.values == [1, 2, 0])
        #expect(LoopExecutor.monotonicNanos() - start >= 200_000_000)
    }

    @Test func stoppingTheLoopCancelsWhatSleepsOnIt() async throws {
        let loop = try LoopExecutor(name: "test-loop")
        let sleeper = Task { try await loop.sleep(untilMonotonic: LoopExecutor.monotonicNanos() + 3_600_000_000_000, isolation: nil) }
        try await Task.sleep(for: .milliseconds(20))
        loop.stop()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    actor Order {
        let loop: LoopExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
        var values: [Int] = []

        init(loop: LoopExecutor) { self.loop = loop }

        func sleep(_ index: Int, until deadline: Int64) async throws {
            try await loop.sleep(untilMonotonic: deadline)
            values.append(index)
        }
    }
}
