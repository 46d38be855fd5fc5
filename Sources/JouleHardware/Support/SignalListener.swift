import JouleWire


/// Delivers SIGINT, SIGTERM (and any other termination signals asked for) to a Swift callback
/// on a thread of its own, so long-running commands stop cleanly: stop scanning, continue what
/// they stopped, thaw what they froze. The handlers are in place when `init` returns. Each
/// listener has its own pipe, so cancelling one never wakes or silences another.
public final class SignalListener: Sendable {
    public let signals: [TerminationSignal]
    private let pipe: Syscalls.SignalPipe
    private let active = Flag()

    /// Shared between the listener and its thread.
    private final class Flag: Sendable {
        let value = Locked(true)
    }

    public init(_ signals: [TerminationSignal], handler: @escaping @Sendable (TerminationSignal) -> Void) throws(HardwareError) {
        self.signals = signals
        let pipe = try Syscalls.openSignalPipe(signals.map(\.number))
        self.pipe = pipe
        do throws(HardwareError) {
            try Syscalls.detachThread(name: "joule-signals") { [active] in
                while let number = Syscalls.readSignal(pipe.read) {
                    guard active.value.withLock({ $0 }) else { return }
                    if let signal = TerminationSignal(number: number) { handler(signal) }
                }
            }
        } catch {
            Syscalls.closeSignalPipe(pipe, signals: signals.map(\.number))
            throw error
        }
    }

    /// Stops delivering and restores the default actions no other listener still handles.
    public func cancel() {
        let wasActive = active.value.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        guard wasActive else { return }
        Syscalls.closeSignalPipe(pipe, signals: signals.map(\.number))
    }

    /// The signals as an async stream, for commands that await them.
    public static func stream(_ signals: [TerminationSignal]) throws(HardwareError) -> (AsyncStream<TerminationSignal>, SignalListener) {
        let (stream, continuation) = AsyncStream.makeStream(of: TerminationSignal.self)
        let listener = try SignalListener(signals) { continuation.yield($0) }
        return (stream, listener)
    }
}
