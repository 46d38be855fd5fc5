#if canImport(Glibc)
import Glibc
#endif

/// A value behind a pthread mutex (JouleHardware's `Locked`, which this module cannot link:
/// apps get nothing of Joule's own). Not `Synchronization.Mutex`: a contended Mutex is handed
/// over inside the kernel, where ThreadSanitizer cannot see it, so an app's TSan run would
/// report races that are not there.
final class StateLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
