import CJouleShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// JouleTesting's C calls: SIGKILL for a helper process (Foundation's Process sends only
/// SIGTERM and SIGINT), and a signal aimed at one thread.
enum SignalGateway {
    static func kill(_ pid: Int32) { _ = Glibc.kill(pid, SIGKILL) }

    /// `signal` for the main thread of `pid` (tgkill(2)), as a crash raises it on the thread
    /// that crashed; kill(2) lets the kernel pick any thread, and one that is exiting
    /// crashes ThreadSanitizer's runtime itself ("thr->slot != 0").
    static func signalMainThread(_ pid: Int32, _ signal: Int32) { _ = joule_tgkill(pid, pid, signal) }

    /// The signals a crash raises in the thread that crashed.
    static func isCrash(_ signal: Int32) -> Bool { [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP].contains(signal) }
}
