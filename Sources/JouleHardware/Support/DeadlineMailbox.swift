import JouleWire

/// Elements from producer tasks for one consumer that waits for the next one or a deadline,
/// whichever comes first, without losing an element to the deadline (an `AsyncStream`'s
/// iterator cannot be raced against a timer: cancelling its `next()` ends the stream).
public final class DeadlineMailbox<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    public init() {}

    public func push(_ element: Element) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.buffer.append(element)
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// Drops what waits (e.g. events of a client that is gone).
    public func removeAll(where predicate: (Element) -> Bool) {
        state.withLock { $0.buffer.removeAll(where: predicate) }
    }

    private func take() -> Element? {
        state.withLock { state in state.buffer.isEmpty ? nil : state.buffer.removeFirst() }
    }

    private func wake() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// The next element, or nil once `deadline` (monotonic) has passed with none; nil
    /// `deadline` waits as long as it takes, and so does a cancelled task's wait end (nil).
    public func next(before deadline: ContinuousClock.Instant?) async -> Element? {
        while true {
            if let element = take() { return element }
            if Task.isCancelled { return nil }
            if let deadline, ContinuousClock.now >= deadline { return nil }
            let timer = deadline.map { deadline in
                Task { [weak self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    self?.wake()
                }
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        // A timer or cancel that fired before the waiter was in place finds
                        // no waiter to wake: the deadline and the cancel are looked at here.
                        guard state.buffer.isEmpty, !Task.isCancelled else { return true }
                        if let deadline, ContinuousClock.now >= deadline { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                wake()
            }
            timer?.cancel()
        }
    }
}
