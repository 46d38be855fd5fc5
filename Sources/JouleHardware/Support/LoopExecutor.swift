import Dispatch
import JouleWire

/// A serial executor that is one thread sleeping in poll(2) until its next timer or until
/// another thread hands it work. An engine (an actor) that runs on it and sleeps with
/// `sleep(untilMonotonic:)` costs one thread wakeup per poll: the timer fires, and the
/// resumed job runs right there, with no timer thread and no hop to the cooperative pool.
/// Jobs enqueued from the loop's own thread need no syscall at all. It is a task executor
/// too: a task that prefers it (`withTaskExecutorPreference`) resumes continuations here,
/// where they would otherwise resume on the global pool and hop back.
public final class LoopExecutor: SerialExecutor, TaskExecutor, Sendable {
    private struct Timer {
        let deadline: Int64
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var jobs: [UnownedJob] = []
        var timers: [Timer] = []
        var nextID = 0
        var stopping = false
        var thread: UInt?
        /// Returns from poll(2), for tests of frugality.
        var wakeups = 0
    }

    private let state = Locked(State())
    private let wake: (read: Int32, write: Int32)

    /// Starts the thread, named `name` in /proc (15 bytes kept).
    public init(name: String) throws(HardwareError) {
        wake = try Syscalls.wakePipe()
        let ready = DispatchSemaphore(value: 0)
        do throws(HardwareError) {
            try Syscalls.detachThread(name: name) { [self] in
                state.withLock { $0.thread = Syscalls.currentThread() }
                ready.signal()
                loop()
            }
        } catch {
            Syscalls.close(wake.read)
            Syscalls.close(wake.write)
            throw error
        }
        // The thread id is needed before the first enqueue decides whether to signal.
        ready.wait()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let signal = state.withLock { state -> Bool in
            state.jobs.append(job)
            return state.thread != Syscalls.currentThread()
        }
        if signal { Syscalls.poke(wake.write) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    public func checkIsolated() {
        precondition(state.withLock { $0.thread } == Syscalls.currentThread(), "not on the loop thread")
    }

    /// How often the thread has woken from poll(2).
    var wakeups: Int { state.withLock { $0.wakeups } }

    /// The monotonic clock the timers use, in nanoseconds.
    public static func monotonicNanos() -> Int64 { Int64(Syscalls.monotonicNanoseconds()) }

    /// Suspends until the monotonic clock reaches `deadline` (nanoseconds), or throws
    /// `CancellationError` when the task is cancelled. The loop thread itself resumes it. The
    /// closures below capture `isolation`, which keeps them (and the resumption) on the
    /// caller's executor: an engine on this loop never hops to the global pool to sleep.
    public func sleep(untilMonotonic deadline: Int64, isolation: isolated (any Actor)? = #isolation) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler(
            operation: {
                _ = isolation
                try await withCheckedThrowingContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, any Error>) in
                    // Resumed outside the lock: resuming enqueues, and enqueue takes the lock.
                    let added = state.withLock { state -> Bool? in
                        if Task.isCancelled || state.stopping { return nil }
                        state.timers.append(Timer(deadline: deadline, id: id, continuation: continuation))
                        return state.thread != Syscalls.currentThread()
                    }
                    switch added {
                    case nil: continuation.resume(throwing: CancellationError())
                    case true?: Syscalls.poke(wake.write)
                    case false?: break
                    }
                }
            },
            onCancel: {
                let cancelled = state.withLock { state -> Timer? in
                    guard let index = state.timers.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.timers.remove(at: index)
                }
                cancelled?.continuation.resume(throwing: CancellationError())
            }, isolation: isolation)
    }

    /// Ends the thread once the jobs queued so far have run. Timers still pending are cancelled.
    public func stop() {
        let timers = state.withLock { state -> [Timer] in
            state.stopping = true
            defer { state.timers.removeAll() }
            return state.timers
        }
        for timer in timers { timer.continuation.resume(throwing: CancellationError()) }
        Syscalls.poke(wake.write)
    }

    private func loop() {
        while true {
            let (jobs, due, stopping, next) = state.withLock { state in
                let jobs = state.jobs
                state.jobs.removeAll(keepingCapacity: true)
                let now = Self.monotonicNanos()
                var due: [Timer] = []
                state.timers.removeAll { timer in
                    guard timer.deadline <= now else { return false }
                    due.append(timer)
                    return true
                }
                return (jobs, due, state.stopping, state.timers.map(\.deadline).min())
            }
            // Timers a late wakeup finds due together resume in deadline order, as if on time.
            for timer in due.sorted(by: { $0.deadline < $1.deadline }) { timer.continuation.resume() }
            for job in jobs { job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor()) }
            if !due.isEmpty || !jobs.isEmpty { continue }
            if stopping { break }
            Syscalls.waitReadable(wake.read, timeoutNanos: next.map { $0 - Self.monotonicNanos() })
            state.withLock { $0.wakeups += 1 }
            Syscalls.drainWake(wake.read)
        }
        Syscalls.close(wake.read)
        Syscalls.close(wake.write)
    }
}
