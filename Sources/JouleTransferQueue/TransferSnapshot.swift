/// A transfer as a client sees it: the binding JSON object of `Get`, `List` and
/// `joule transfer show --json`, decoded (`TransferSnapshot(json:)`). The daemon's own
/// `Transfer` carries more (owner, headers, validators); this is what it tells its callers.
public struct TransferSnapshot: Sendable, Hashable, Identifiable {
    public var id: String
    public var url: String
    /// The final file of a download; nil for an upload.
    public var destination: String?
    /// The state with what the JSON says about it: `waitingFor` in `.waiting`, `nextAttempt`
    /// in `.retrying` and `.suspended`, `error` in `.failed`.
    public var state: TransferState
    public var discretionary: Bool
    public var priority: TransferPriority
    public var batch: String?
    /// Bytes durably written (downloads) or acknowledged (uploads).
    public var bytes: Int64
    /// The whole body's length, once the server has told it.
    public var totalBytes: Int64?
    /// Attempts since the last progress.
    public var attempts: Int
    /// Unix seconds: failed if not finished by then.
    public var deadline: Double
    /// Why it failed, or the last attempt's error while it retries.
    public var error: String?

    public init(
        id: String, url: String, destination: String?, state: TransferState, discretionary: Bool = false,
        priority: TransferPriority = .normal, batch: String? = nil, bytes: Int64 = 0, totalBytes: Int64? = nil,
        attempts: Int = 0, deadline: Double, error: String? = nil
    ) {
        self.id = id
        self.url = url
        self.destination = destination
        self.state = state
        self.discretionary = discretionary
        self.priority = priority
        self.batch = batch
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.attempts = attempts
        self.deadline = deadline
        self.error = error
    }

    /// The unmet conditions while waiting; empty otherwise.
    public var waitingFor: [TransferCondition] { state.waitingFor }

    /// Why it waits or failed: the JSON's `reason`, derived from `state` and `error` (so a
    /// daemon older than the key gives the same).
    public var reason: String? { state.reason(error: error) }

    /// When the next attempt may start (retrying, or suspended for poor throughput).
    public var nextAttempt: Double? { state.nextAttempt }

    /// Done out of the whole, 0…1, when the length is known.
    public var fraction: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return state == .completed ? 1 : 0 }
        return min(1, max(0, Double(bytes) / Double(totalBytes)))
    }
}
