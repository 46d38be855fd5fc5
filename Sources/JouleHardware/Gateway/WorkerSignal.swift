#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A pthread mutex with two condition variables on CLOCK_MONOTONIC, for `PoolExecutor`'s
/// workers: one for idle workers waiting for any job, one for the worker that waits for the
/// next timer. pthread rather than a futex of our own, because ThreadSanitizer intercepts it.
final class WorkerSignal: @unchecked Sendable {
    enum Queue { case work, timer }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let work: UnsafeMutablePointer<pthread_cond_t>
    private let timer: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        work = .allocate(capacity: 1)
        work.initialize(to: pthread_cond_t())
        pthread_cond_init(work, &attributes)
        timer = .allocate(capacity: 1)
        timer.initialize(to: pthread_cond_t())
        pthread_cond_init(timer, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(work)
        pthread_cond_destroy(timer)
        pthread_mutex_destroy(mutex)
        work.deallocate()
        timer.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes one waiter of `queue`; the caller holds the lock.
    func signal(_ queue: Queue) { pthread_cond_signal(queue == .work ? work : timer) }

    /// Waits on `queue` (the caller holds the lock, which is released meanwhile) until
    /// signalled, or until the monotonic clock reaches `deadline` nanoseconds when given.
    /// Spurious returns are possible: the caller re-checks its state.
    func wait(_ queue: Queue, until deadline: Int64? = nil) {
        let condition = queue == .work ? work : timer
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &time)
    }
}
