@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// Swift concurrency's default (global) executor for the `joule` process, in place of
/// libdispatch's: a few threads of Joule's own that sleep on a condition variable, with the
/// timers of `Task.sleep` kept here too.
///
/// Why: on Linux, libdispatch arms a 1 Hz timer on its manager thread the first time a global
/// queue is used (`_dispatch_workq_monitor_pools`, swift-corelibs-libdispatch
/// src/event/workqueue.c) and never disarms it, so every process that runs Swift concurrency
/// wakes at least once a second, however idle; each timer fires on the manager thread and then
/// wakes a worker, and idle workers exit after 5 s to be started again. Here an idle process
/// sleeps until its next timer, a timer wakes the one worker that runs it, and a job that a
/// worker enqueues while running (the usual resume of a continuation) is run by that same
/// worker when its job ends, without waking another.
///
/// Installed with `runOnPoolExecutor(_:)` (the ExecutorFactory of SE-0472, still SPI in Swift
/// 6.3, which is also why the type is internal) at the start of a synchronous main, before any
/// task exists. Tests use instances as task executors.
final class PoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    private struct Timer {
        enum Action {
            /// A runtime timer (`Task.sleep`): the job to run.
            case job(UnownedJob)
            /// A `sleep(for:)`: its continuation's id in `sleepers`.
            case sleeper(UInt64)
        }

        let deadline: Int64
        let action: Action
    }

    private let signal = WorkerSignal()
    private let maximumWorkers: Int
    private let name: String

    // Guarded by `signal`'s mutex.
    private var ready: [UnownedJob] = []
    private var readyHead = 0
    private var timers: [Timer] = []
    private var workerThreads: [UInt] = []
    private var workersStarting = 0
    private var idleWorkers = 0
    private var wakeTokens = 0
    private var timerWaiting = false
    private var wakeupCount = 0
    private var timersScheduled = 0
    private var sleepers: [UInt64: UnsafeContinuation<Void, any Error>] = [:]
    private var lastSleeper: UInt64 = 0

    /// `maximumWorkers` bounds the threads (started only when a job finds every worker busy):
    /// enough that a job blocked in the kernel (an fsync, a slow sysfs read) does not hold up
    /// the rest.
    init(name: String = "joule-pool", maximumWorkers: Int = max(4, Syscalls.onlineProcessors())) {
        self.name = name
        self.maximumWorkers = max(1, maximumWorkers)
    }

    /// The process's default executor once `installAsDefault()` ran.
    static let shared = PoolExecutor()

    private enum Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { PoolExecutor.shared }
    }

    /// Makes `shared` the default executor of every task that has no other. Call once, first
    /// thing in a synchronous main, before any task exists.
    static func installAsDefault() {
        _createExecutors(factory: Factory.self)
        installed = true
    }

    /// Written once, before any task exists; read by `CancellableSleep`.
    nonisolated(unsafe) static var installed = false

    /// Makes the calling thread (the main thread) a worker for good, after `start`: the first
    /// task that `start` creates is then this thread's own enqueue, and no second thread starts
    /// for it.
    func work(after start: () -> Void) -> Never {
        signal.lock()
        workerThreads.append(Syscalls.currentThread())
        signal.unlock()
        start()
        signal.lock()
        serve()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        signal.lock()
        ready.append(job)
        // A worker's own enqueue (it is running a job) is picked up by that worker next,
        // unless there is already a backlog for it.
        if !(readyCount == 1 && isWorker(Syscalls.currentThread())) { wakeWorker() }
        signal.unlock()
    }

    /// Deadlines are kept on CLOCK_MONOTONIC (a condition variable cannot wait on
    /// CLOCK_BOOTTIME), so a ContinuousClock sleep that spans a system suspend ends its interval
    /// after the resume, as a SuspendingClock sleep does, rather than at the resume.
    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        // Clocks whose Duration is not Swift's (none in Joule) run the job at once.
        schedule(UnownedJob(job), deadline: Self.deadline(after: (delay as? Duration).map(Self.nanoseconds) ?? 0))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    /// Sleeps for `duration` (at least), or throws CancellationError as soon as the task is
    /// cancelled, and then keeps nothing. The runtime's `Task.sleep` leaves its timer (a small
    /// task) queued until the deadline after a cancel, here and under libdispatch alike: a
    /// scheduler that re-arms a long timer on every change held one per change.
    func sleep(for duration: Duration) async throws {
        let deadline = Self.deadline(after: Self.nanoseconds(duration))
        signal.lock()
        lastSleeper += 1
        let id = lastSleeper
        signal.unlock()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                signal.lock()
                // A cancel that came first set the flag before its handler found nothing here.
                if Task.isCancelled {
                    signal.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                sleepers[id] = continuation
                insertTimer(Timer(deadline: deadline, action: .sleeper(id)))
                signal.unlock()
            }
        } onCancel: {
            signal.lock()
            guard let continuation = sleepers.removeValue(forKey: id) else {
                signal.unlock()
                return
            }
            if let index = timers.firstIndex(where: { if case .sleeper(id) = $0.action { true } else { false } }) {
                timers.remove(at: index)
            }
            signal.unlock()
            continuation.resume(throwing: CancellationError())
        }
    }

    /// Timers waiting for their deadline (runtime timers and sleeps).
    var pendingTimers: Int {
        signal.lock()
        defer { signal.unlock() }
        return timers.count
    }

    /// Threads started so far.
    var workers: Int {
        signal.lock()
        defer { signal.unlock() }
        return workerThreads.count + workersStarting
    }

    /// Returns from a wait, summed over the workers: the wakeups this executor cost.
    var wakeups: Int {
        signal.lock()
        defer { signal.unlock() }
        return wakeupCount
    }

    /// Timers scheduled so far (`Task.sleep` in tasks that prefer this executor).
    var scheduledTimers: Int {
        signal.lock()
        defer { signal.unlock() }
        return timersScheduled
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? 0 : Int64.max }
        let (total, overflowed) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowed ? (seconds < 0 ? 0 : Int64.max) : total
    }

    private static func monotonicNanos() -> Int64 { Int64(Syscalls.monotonicNanoseconds()) }

    /// Now plus `nanoseconds` (negative counts as 0), saturating: a sleep "forever" (Int64.max
    /// nanoseconds) must not wrap into the past.
    private static func deadline(after nanoseconds: Int64) -> Int64 {
        let delay = max(0, nanoseconds), now = monotonicNanos()
        return delay > Int64.max - now ? Int64.max : now + delay
    }

    // MARK: - Under the lock

    private var readyCount: Int { ready.count - readyHead }

    private func isWorker(_ thread: UInt) -> Bool { workerThreads.contains(thread) }

    private func popReady() -> UnownedJob? {
        guard readyHead < ready.count else { return nil }
        let job = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        } else if readyHead >= 64 && readyHead * 2 >= ready.count {
            ready.removeFirst(readyHead)
            readyHead = 0
        }
        return job
    }

    /// Wakes one idle worker not already woken; false when there is none.
    @discardableResult
    private func wakeIdleWorker() -> Bool {
        guard idleWorkers > wakeTokens else { return false }
        wakeTokens += 1
        signal.signal(.work)
        return true
    }

    /// One more worker for a ready job: an idle one, else the timer's waiter, else a new thread.
    private func wakeWorker() {
        if wakeIdleWorker() {
            return
        } else if timerWaiting {
            signal.signal(.timer)
        } else if workerThreads.count + workersStarting < maximumWorkers {
            _ = startWorker()
        }
        // Otherwise every worker is busy, and the first to finish takes the job.
    }

    private func schedule(_ job: UnownedJob, deadline: Int64) {
        signal.lock()
        defer { signal.unlock() }
        insertTimer(Timer(deadline: deadline, action: .job(job)))
    }

    private func insertTimer(_ timer: Timer) {
        timersScheduled += 1
        let deadline = timer.deadline
        // Sorted by deadline, ties in order of scheduling; timers are few.
        var low = 0, high = timers.count
        while low < high {
            let middle = (low + high) / 2
            if timers[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        timers.insert(timer, at: low)
        guard low == 0 else { return }
        // A new earliest deadline: the waiter re-arms, or an idle worker becomes the waiter. When
        // every worker is busy, the first to go idle waits for it.
        if timerWaiting {
            signal.signal(.timer)
        } else {
            wakeIdleWorker()
        }
    }

    private func startWorker() -> Bool {
        workersStarting += 1
        do throws(HardwareError) {
            try Syscalls.detachThread(name: name) { [self] in
                signal.lock()
                workersStarting -= 1
                workerThreads.append(Syscalls.currentThread())
                serve()
            }
            return true
        } catch {
            workersStarting -= 1
            return false
        }
    }

    /// A worker's loop; the caller holds the lock and is registered in `workerThreads`.
    private func serve() -> Never {
        while true {
            if !timers.isEmpty {
                let now = Self.monotonicNanos()
                let due = timers.prefix { $0.deadline <= now }.count
                var woken: [UnsafeContinuation<Void, any Error>] = []
                for timer in timers.prefix(due) {
                    switch timer.action {
                    case .job(let job): ready.append(job)
                    case .sleeper(let id): if let continuation = sleepers.removeValue(forKey: id) { woken.append(continuation) }
                    }
                }
                timers.removeFirst(due)
                // Timers due together run side by side when workers are idle.
                for _ in 1..<max(1, due - woken.count) { guard wakeIdleWorker() else { break } }
                if !woken.isEmpty {
                    // Outside the lock: a resume enqueues the task, which takes it.
                    signal.unlock()
                    for continuation in woken { continuation.resume() }
                    signal.lock()
                    continue
                }
            }
            if let job = popReady() {
                // The timers still pending get a waiter while this job runs (it may block in
                // the kernel): one more wakeup per timer fired, against timers late by as long.
                // With no idle worker (this one may be the waiter, taken for a job), a new one
                // while the pool has room: else a job blocking here held every timer back (seen
                // as a 30 s stall in PoolExecutorTests under load).
                if !timerWaiting, !timers.isEmpty, !wakeIdleWorker(), workerThreads.count + workersStarting < maximumWorkers {
                    _ = startWorker()
                }
                signal.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                signal.lock()
                continue
            }
            if let first = timers.first, !timerWaiting {
                timerWaiting = true
                signal.wait(.timer, until: first.deadline)
                timerWaiting = false
            } else {
                idleWorkers += 1
                signal.wait(.work)
                idleWorkers -= 1
                if wakeTokens > 0 { wakeTokens -= 1 }
            }
            wakeupCount += 1
        }
    }
}

/// Makes Joule's `PoolExecutor` the default executor of every task that has no other, runs
/// `start` (which creates the first task), and makes the calling thread one of its workers
/// for good. For a synchronous main, before any task exists. The main actor is not served:
/// nothing in joule uses it.
public func runOnPoolExecutor(_ start: () -> Void) -> Never {
    // Before any worker exists, so all of them inherit it. libdispatch's main thread accepted
    // every signal in sigsuspend; without it, an inherited blocked mask would hide SIGTERM.
    Syscalls.unblockSignals()
    // Before any other thread allocates: a long-running joule (daemon, watch) needs few arenas.
    Syscalls.limitMallocArenas(2)
    PoolExecutor.installAsDefault()
    PoolExecutor.shared.work(after: start)
}
