import JouleWire


/// SIGINT, SIGTERM and SIGHUP as an async stream, so a long-running command can stop cleanly
/// (for the CPU monitor: continue every process it stopped) instead of dying mid-cycle.
public enum TerminationSignals {
    /// Starts watching; the default action of each signal is replaced for the life of the
    /// process (the handlers are in place on return). Yields the signal each time one
    /// arrives. Without a signal pipe the default actions stay and the stream never yields.
    public static func stream() -> AsyncStream<TerminationSignal> {
        guard let (stream, listener) = try? SignalListener.stream(TerminationSignal.allCases) else {
            return AsyncStream { _ in }
        }
        // The listener lives as long as the process: the replaced actions must stay handled.
        retained.withLock { $0.append(listener) }
        return stream
    }

    private static let retained = Locked<[SignalListener]>([])
}
