import JouleTransferQueue

/// The user's finished transfers gathered into batches, one notification each. Pure: times are
/// the caller's (monotonic seconds), so tests inject them.
///
/// The rule, after NSURLSession's `urlSessionDidFinishEvents` (called once every event of a
/// background session has been delivered) and a BITS job (done when its last file is): a batch
/// is what finished since the last batch, reported once none of the user's transfers is live
/// (waiting, running, suspended, retrying) and `quiet` seconds have passed since the last one
/// ended, so a burst (the next transfer queued as one finishes, a retry) is one batch. A
/// transfer still waiting for its conditions holds the batch open. Completed and failed count;
/// cancelled ones were the user's own doing and count in neither, so a batch of only those
/// reports nothing.
public struct TransferBatcher: Sendable, Hashable {
    /// Seconds after the last end, with nothing live, before the batch is reported.
    public var quiet: Double
    private var live: Set<String> = []
    private var completed: Set<String> = []
    private var failed: Set<String> = []
    /// When a transfer last ended (or the queue was found drained): the quiet time runs from here.
    private var lastEnd: Double?

    public init(quiet: Double = 2) {
        self.quiet = quiet
    }

    /// The user's transfers that are live now (`List` at start, or when the daemon comes
    /// back): they replace what the signals said, which may have been missed.
    public mutating func reset(live ids: some Sequence<String>, at time: Double) {
        let fresh = Set(ids)
        // One the signals had as live is gone: it ended unheard, now as far as we know.
        if !live.isSubset(of: fresh) { lastEnd = time }
        live = fresh
    }

    /// One of the user's transfers changed or finished. Each finished transfer counts once
    /// (`TransferFinished`; the final `TransferChanged` before it only ends its liveness).
    public mutating func observe(_ event: TransferEvent, at time: Double) {
        guard event.isFinal else {
            live.insert(event.id)
            return
        }
        // The final TransferChanged comes just before TransferFinished: the quiet time runs
        // from the later of the two, so the one cannot report a batch without the other.
        live.remove(event.id)
        lastEnd = time
        guard case .finished = event else { return }
        switch event.state {
        case "completed": completed.insert(event.id)
        case "failed": failed.insert(event.id)
        default: break
        }
    }

    /// When the batch is due, if it would be reported with nothing more happening: nil while
    /// a transfer is live or nothing has finished.
    public var deadline: Double? {
        guard live.isEmpty, let lastEnd, !(completed.isEmpty && failed.isEmpty) else { return nil }
        return lastEnd + quiet
    }

    /// The batch, if due at `time`, and a fresh one begun; nil otherwise.
    public mutating func fire(at time: Double) -> SessionEvent? {
        guard let deadline, time >= deadline else { return nil }
        let event = SessionEvent.transferBatchFinished(completed: completed.count, failed: failed.count)
        completed = []
        failed = []
        lastEnd = nil
        return event
    }
}
