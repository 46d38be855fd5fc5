/// An attempt's result: its outcome and what the queue must store afterwards.
public struct TransferAttemptResult: Sendable, Equatable {
    public var outcome: TransferOutcome
    /// Bytes of the `.part` file known to be on disk (fsynced); 0 after completion's rename
    /// is irrelevant, the destination is whole.
    public var durableBytes: Int64
    /// The validators the `.part` file now belongs to.
    public var validators: TransferValidators
    /// Whether durableBytes grew during this attempt (resets the attempts-without-progress count).
    public var progressed: Bool

    public init(outcome: TransferOutcome, durableBytes: Int64, validators: TransferValidators, progressed: Bool) {
        self.outcome = outcome
        self.durableBytes = durableBytes
        self.validators = validators
        self.progressed = progressed
    }
}
