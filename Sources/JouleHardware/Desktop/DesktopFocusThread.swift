/// What both focus sources share: the loop on a `StoppableThread` of its own, its snapshots
/// handed to one consumer (the newest kept when it lags), its wakeups counted, and the error
/// that ends it — thrown by `start` when it comes before the loop is ready, else ending the
/// stream. `describe` words a `HardwareError` as the source's own `DesktopFocusError`.
struct DesktopFocusThread {
    /// The source's loop: sleeps in poll(2) on `stopFD` and its connection, calls `onWake` at
    /// each return, `ready` once subscribed, `onSnapshot` for each new snapshot.
    typealias Loop = @Sendable (
        _ stopFD: Int32, _ onWake: () -> Void, _ ready: () -> Void, _ onSnapshot: (DesktopSnapshot) -> Void
    ) throws(HardwareError) -> Void

    let thread: StoppableThread
    let snapshots: AsyncThrowingStream<DesktopSnapshot, any Error>

    static func start(
        name: String, counter: WakeupCounter, loop: @escaping Loop, describe: @escaping @Sendable (HardwareError) -> DesktopFocusError
    ) throws(DesktopFocusError) -> DesktopFocusThread {
        let queue = HandoffQueue<Result<DesktopSnapshot, DesktopFocusError>>(keepingNewest: 64)
        let snapshots = queue.throwingStream()
        do {
            let thread = try StoppableThread(
                name: name,
                body: { stopFD, ready throws(HardwareError) in
                    var started = false
                    do throws(HardwareError) {
                        try loop(
                            stopFD, { counter.increment() },
                            {
                                started = true
                                ready()
                            },
                            { queue.push(.success($0)) })
                    } catch {
                        // Before ready the error is init's to throw; after it, the stream's end.
                        guard started else { throw error }
                        queue.push(.failure(describe(error)))
                    }
                },
                finished: { queue.finish() })
            return DesktopFocusThread(thread: thread, snapshots: snapshots)
        } catch {
            throw describe(error)
        }
    }

    /// `operation: errno: detail`, the reason a `DesktopFocusError` gives.
    static func reason(_ error: HardwareError) -> String {
        var reason = error.operation
        if let errno = error.errno { reason += ": \(errno)" }
        if let detail = error.detail { reason += ": \(detail)" }
        return reason
    }
}
