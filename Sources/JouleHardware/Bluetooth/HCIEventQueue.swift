import JouleWire


/// The event side of a live transport (the HCI socket's loop, BlueZ's signals): events
/// waiting for the reader, the reader waiting for an event, and how the stream ends: stopped
/// (nil at once), closed (nil once drained) or failed (the error once drained). Safe from any
/// thread.
final class HCIEventQueue: Sendable {
    private struct State {
        var events: [HCIEventRecord] = []
        var waiter: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>?
        var stopped = false
        var closed = false
        var failure: HCITransportError?
    }

    private let state = Locked(State())
    /// Bounded: a stalled reader drops old adverts instead of hoarding them.
    private let limit = 4096

    var failure: HCITransportError? { state.withLock { $0.failure } }

    func next() async throws(HCITransportError) -> HCIEventRecord? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>) in
            let ready: Result<HCIEventRecord?, HCITransportError>? = state.withLock { state in
                // Once stopped, nothing more: events (or clock ticks) queued meanwhile are dropped.
                if state.stopped { return .success(nil) }
                if !state.events.isEmpty { return .success(state.events.removeFirst()) }
                if let failure = state.failure { return .failure(failure) }
                if state.closed { return .success(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }

    /// Hands `record` to the waiting reader, or queues it; dropped once stopped or failed.
    func deliver(_ record: HCIEventRecord) {
        let waiter: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>? = state.withLock { state in
            guard !state.stopped, state.failure == nil else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.events.count >= limit { state.events.removeFirst() }
            state.events.append(record)
            return nil
        }
        waiter?.resume(returning: .success(record))
    }

    /// Ends the stream now (a signal, a cancelled task).
    func stop() {
        let waiter = state.withLock { state in
            state.stopped = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .success(nil))
    }

    /// No more events will come: the reader gets what is queued, then nil.
    func close() { state.withLock { $0.closed = true } }

    /// Wakes the waiting reader with `error`; with `record`, every later read fails too.
    func fail(_ error: HCITransportError, record: Bool = true) {
        let waiter = state.withLock { state in
            if record && state.failure == nil { state.failure = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .failure(error))
    }
}
