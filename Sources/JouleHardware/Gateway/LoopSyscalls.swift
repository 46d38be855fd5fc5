#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Wake pipes (<sys/eventfd.h> is not in the Glibc module, and a pipe needs no shim), and poll(2) for `LoopExecutor`'s thread.
extension Syscalls {
    /// A close-on-exec pipe with both ends non-blocking: another thread's byte wakes the
    /// loop's poll, a full pipe never blocks the writer (the loop is awake then anyway), and
    /// `drainWake` empties it without blocking.
    static func wakePipe() throws(HardwareError) -> (read: Int32, write: Int32) {
        let ends = try pipe()
        for fd in [ends.read, ends.write] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return ends
    }

    /// Empties a wake pipe after a wake.
    static func drainWake(_ readEnd: Int32) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Sleeps in poll(2) until `fd` is readable or `timeoutNanos` passes (nil: no timeout).
    /// The timeout is rounded up to whole milliseconds: waking a little late costs nothing,
    /// waking early would cost a second wakeup to sleep the rest.
    static func waitReadable(_ fd: Int32, timeoutNanos: Int64?) {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeoutNanos.map { Int32(clamping: (max(0, $0) + 999_999) / 1_000_000) } ?? -1
        _ = poll(&entry, 1, milliseconds)
    }

    /// The calling thread, to tell the loop's own thread from others.
    static func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }
}
