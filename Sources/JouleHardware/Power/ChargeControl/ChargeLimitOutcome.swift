/// What applying a charge limit did and what the battery reads afterwards. A limit is
/// reported as holding only when the read-back shows every value written.
public struct ChargeLimitOutcome: Sendable, Hashable {
    public var request: ChargeLimitRequest
    public var source: ChargeLimitSource
    /// The writes, in the order made: `charge_control_end_threshold=80`.
    public var writes: [String]
    /// The battery's controls read after the writes.
    public var held: ChargeControlState
    /// Each value the read-back does not show, naming the file.
    public var mismatches: [String]

    public var holds: Bool { mismatches.isEmpty }
}
