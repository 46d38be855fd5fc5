import JouleTransferQueue

extension TransfersClient {
    /// How `wait(for:timeout:)` ended.
    public enum WaitEnding: Sendable, Hashable {
        /// The transfer is final: completed, failed or cancelled.
        case final(String)
        /// Still not final when the time ran out.
        case timedOut
        /// joule daemon left the bus first.
        case daemonLeft
    }

    /// Waits until transfer `id` (a whole id) is final, `timeout` seconds pass (nil: as long as
    /// it takes) or the daemon leaves the bus. Returns how it ended and the transfer as last
    /// read: read again at the end, so it says why it failed or where it stands, except when
    /// the daemon left and cannot say.
    public func wait(for id: String, timeout: Double?) async throws(TransfersError) -> (ending: WaitEnding, transfer: TransferSnapshot) {
        // Subscribed before the first Get, so a change in between is not missed.
        let events = try await events()
        let first = try await get(id).transfer
        guard first.state.isLive else { return (.final(first.state.name), first) }
        let ending = await Self.firstEnding(of: events, id: id, timeout: timeout)
        if case .daemonLeft = ending { return (ending, first) }
        let last = (try? await get(id).transfer) ?? first
        // It may have finished as the time ran out.
        if case .timedOut = ending, last.state.isFinished { return (.final(last.state.name), last) }
        return (ending, last)
    }

    /// The first final state of `id` among `events`, or the timeout, or the stream's end.
    static func firstEnding(of events: AsyncStream<TransferEvent>, id: String, timeout: Double?) async -> WaitEnding {
        await withTaskGroup(of: WaitEnding.self) { group in
            group.addTask {
                for await event in events where event.id == id && event.isFinal { return .final(event.state) }
                return .daemonLeft
            }
            if let timeout {
                group.addTask {
                    // Duration traps on seconds it cannot hold; a billion (32 years) is forever enough.
                    try? await Task.sleep(for: .seconds(min(timeout, 1e9)))
                    return .timedOut
                }
            }
            let ending = await group.next() ?? .daemonLeft
            group.cancelAll()
            return ending
        }
    }
}
