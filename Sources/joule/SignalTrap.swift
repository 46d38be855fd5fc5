import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a callback on a dispatch queue, so a long-running command can
/// stop cleanly (stop scanning, resume paused work) instead of dying mid-way. The default
/// actions are ignored while the trap is installed; no work happens in a raw signal handler.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "joule.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
