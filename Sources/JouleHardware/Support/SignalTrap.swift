import JouleWire


/// Turns SIGINT and SIGTERM (or the signals given) into a callback, so a long-running engine
/// can stop cleanly (stop scanning, resume paused work) instead of dying mid-way. The handlers
/// are installed before `init` returns; no work happens in a raw signal handler.
public final class SignalTrap: Sendable {
    private let listener: SignalListener?

    public init(_ signals: [TerminationSignal] = [.interrupt, .terminate], handler: @escaping @Sendable (TerminationSignal) -> Void) {
        do {
            listener = try SignalListener(signals, handler: handler)
        } catch {
            // Without the pipe the default actions stay: joule still stops, only less cleanly.
            Console.error("joule: cannot handle signals: \(error)")
            listener = nil
        }
    }

    public func cancel() {
        listener?.cancel()
    }
}

extension SignalTrap {
    /// Runs `operation` in a task that SIGINT or SIGTERM cancel. The trap is in place before the
    /// task starts, so a signal arriving at any moment ends the work cleanly, never by default
    /// action half-way through.
    public static func cancellingOnSignal<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let relay = CancellationRelay()
        let trap = SignalTrap { _ in relay.fire() }
        defer { trap.cancel() }
        let task = Task { try await operation() }
        relay.attach { task.cancel() }
        return try await task.value
    }
}

/// Hands a signal to a task that may not exist yet: firing before `attach` cancels on attach.
private final class CancellationRelay: Sendable {
    private let state = Locked<(fired: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

    func fire() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.fired = true
            return state.cancel
        }
        cancel?()
    }

    func attach(_ cancel: @escaping @Sendable () -> Void) {
        let fired = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.fired
        }
        if fired { cancel() }
    }
}
