import JouleWire

/// Elements made on a thread of Joule's own (the bus thread, a monitor thread) for one
/// consuming task, in order, as an `AsyncStream`.
///
/// Not `AsyncStream.makeStream`, whose handoff from a foreign thread ThreadSanitizer has to take
/// on trust from the Concurrency runtime: once, in the VM's BlueZ scan, it reported the
/// consumer's reads of a signal's values (written in the sd-bus callback) as races. That was
/// not reproduced, neither in 20 VM runs nor in-process with buffered or awaited signals, so
/// which path it was is not known. Here every element passes through a pthread mutex, which
/// ThreadSanitizer sees whatever the path; the continuation only wakes the consumer, as
/// `SdBusGateway.Handoff` does for replies.
public final class HandoffQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?

        var isEmpty: Bool { head == buffer.count }

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter
        }
    }

    private let state = Locked(State())
    private let limit: Int

    /// `keepingNewest`: at most that many elements wait; the oldest are dropped for newer ones.
    public init(keepingNewest limit: Int = .max) {
        self.limit = max(1, limit)
    }

    /// Adds an element (dropped once the queue is finished) and wakes the consumer.
    public func push(_ element: Element) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished else { return nil }
            state.buffer.append(element)
            if state.buffer.count - state.head > limit { state.head += 1 }
            // Keeps the array from growing without end while the consumer never quite catches up.
            if state.head >= 1024, state.head * 2 >= state.buffer.count {
                state.buffer.removeFirst(state.head)
                state.head = 0
            }
            return state.takeWaiter()
        }?.resume()
    }

    /// No more elements: the consumer gets those waiting, then nil.
    public func finish() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            return state.takeWaiter()
        }?.resume()
    }

    /// Finishes and drops what waits: the consumer is gone.
    private func cancel() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            state.buffer.removeAll()
            state.head = 0
            return state.takeWaiter()
        }?.resume()
    }

    private enum Taken {
        case element(Element)
        case finished
        case empty
    }

    private func take() -> Taken {
        state.withLock { state in
            guard !state.isEmpty else { return state.finished ? .finished : .empty }
            let element = state.buffer[state.head]
            state.head += 1
            if state.isEmpty {
                state.buffer.removeAll(keepingCapacity: state.buffer.count <= 64)
                state.head = 0
            }
            return .element(element)
        }
    }

    /// The next element, in order; nil once finished and drained, or when the task is cancelled.
    /// One consumer only.
    func next() async -> Element? {
        while true {
            switch take() {
            case .element(let element): return element
            case .finished: return nil
            case .empty: break
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        guard state.isEmpty, !state.finished else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The queue as a stream for one consumer. `onEnd` runs once, when the consumer's task is
    /// cancelled or the stream is released.
    public func stream(onEnd: @escaping @Sendable () -> Void = {}) -> AsyncStream<Element> {
        let subscription = Subscription(queue: self, onEnd: onEnd)
        return AsyncStream(unfolding: { await subscription.next() })
    }

    /// The queue of results as a throwing stream: a `.failure` ends it with that error (push
    /// it last, then `finish()`). For sources whose end says why, such as a display gone.
    public func throwingStream<Value: Sendable, Failure: Error>(
        onEnd: @escaping @Sendable () -> Void = {}
    ) -> AsyncThrowingStream<Value, any Error> where Element == Result<Value, Failure> {
        let subscription = Subscription(queue: self, onEnd: onEnd)
        return AsyncThrowingStream(unfolding: { try await subscription.next()?.get() })
    }

    /// Held only by the stream, so its deinit says the consumer is gone.
    private final class Subscription: Sendable {
        let queue: HandoffQueue
        let onEnd: @Sendable () -> Void

        init(queue: HandoffQueue, onEnd: @escaping @Sendable () -> Void) {
            self.queue = queue
            self.onEnd = onEnd
        }

        func next() async -> Element? { await queue.next() }

        deinit {
            queue.cancel()
            onEnd()
        }
    }
}
