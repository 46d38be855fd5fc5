import Foundation
import Synchronization

/// Delivers SIGINT, SIGTERM (and any other termination signals asked for) to a Swift callback
/// on a thread of its own, so long-running commands stop cleanly: stop scanning, continue what
/// they stopped, thaw what they froze. The handlers are in place when `init` returns.
public final class SignalListener: Sendable {
    public let signals: [Int32]
    private let active = Flag()

    /// Shared between the listener and its thread.
    private final class Flag: Sendable {
        let value = Mutex(true)
    }

    public init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) throws(HardwareError) {
        self.signals = signals
        let fd = try Syscalls.installSignalPipe(signals)
        let active = self.active
        let thread = Thread {
            while let number = Syscalls.readSignal(fd) {
                guard active.value.withLock({ $0 }) else { return }
                if number != 0 { handler(number) }
            }
        }
        thread.name = "joule-signals"
        thread.start()
    }

    /// Stops delivering and restores the default actions.
    public func cancel() {
        let wasActive = active.value.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        guard wasActive else { return }
        Syscalls.restoreDefaultSignals(signals)
        Syscalls.wakeSignalReader()
    }

    /// The signals as an async stream, for commands that await them.
    public static func stream(_ signals: [Int32]) throws(HardwareError) -> (AsyncStream<Int32>, SignalListener) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let listener = try SignalListener(signals) { continuation.yield($0) }
        return (stream, listener)
    }
}
