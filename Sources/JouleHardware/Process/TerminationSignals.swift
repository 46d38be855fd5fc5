import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// SIGINT, SIGTERM and SIGHUP as an async stream, so a long-running command can stop cleanly
/// (for the CPU monitor: continue every process it stopped) instead of dying mid-cycle.
public enum TerminationSignals {
    /// Starts watching; the default action of each signal is replaced for the life of the
    /// process. Yields the signal number each time one arrives.
    public static func stream() -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let queue = DispatchQueue(label: "joule.termination-signals")
            for signal in [SIGINT, SIGTERM, SIGHUP] {
                Syscalls.ignoreSignal(signal)
                let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
                // The handler holds its own source: the signal's default action stays replaced
                // for the process's life, so the source must too (a deliberate cycle).
                source.setEventHandler {
                    withExtendedLifetime(source) { _ = continuation.yield(signal) }
                }
                source.resume()
            }
        }
    }
}
