#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// JouleTesting's one C call: SIGKILL for a helper process (Foundation's Process sends only
/// SIGTERM and SIGINT).
enum SignalGateway {
    static func kill(_ pid: Int32) { _ = Glibc.kill(pid, SIGKILL) }
}
