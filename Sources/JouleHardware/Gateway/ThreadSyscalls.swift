#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims

/// Detached pthreads for loops that block in the kernel (poll, waitpid, read on a signal
/// pipe): Foundation's Thread is the only reason the hardware layer would need all of
/// Foundation, and a pthread is what it wraps anyway.
extension Syscalls {
    private final class ThreadStart {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread named `name` (at most 15 bytes are kept), or
    /// throws why not (EAGAIN when the process is at its thread limit).
    static func detachThread(name: String, _ body: @escaping @Sendable () -> Void) throws(HardwareError) {
        let start = Unmanaged.passRetained(ThreadStart { _ = joule_set_thread_name(name); body() }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
            start.body()
            return nil
        }, start)
        guard status == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(start).release()
            throw HardwareError(operation: "pthread_create", path: name, errno: Errno(status))
        }
        pthread_detach(thread)
    }

    /// Processors online (sysconf(_SC_NPROCESSORS_ONLN)), at least 1.
    static func onlineProcessors() -> Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// Clears the calling thread's signal mask (threads it starts inherit it). A parent may
    /// start us with signals blocked (Foundation's Process spawns from threads that block
    /// them); with no thread accepting SIGTERM, it would stay pending and never reach a handler.
    static func unblockSignals() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    /// At most `count` malloc arenas for the whole process. glibc gives threads arenas of their
    /// own (up to 8 per core), each holding on to what its thread freed: joule's threads mostly
    /// sleep, so the extra arenas only kept memory (the daemon: 0.9 MiB less at warm-up and a
    /// quarter of the growth after 2,000 transfers with 2, under the soak's load).
    static func limitMallocArenas(_ count: Int32) {
        _ = joule_limit_malloc_arenas(count)
    }
}
