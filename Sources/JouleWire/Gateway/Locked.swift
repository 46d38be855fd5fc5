#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex, for state shared with threads of Joule's own.
///
/// Not `Synchronization.Mutex`: on Linux a contended Mutex is handed over inside the kernel
/// (a priority-inheritance futex), which ThreadSanitizer cannot see, so every contended access
/// was reported as a race and a real one would have drowned among them. ThreadSanitizer
/// intercepts pthread mutexes; uncontended, both cost one atomic operation.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
