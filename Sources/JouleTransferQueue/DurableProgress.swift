/// Reported after each fsync: the queue commits these together (one transaction) before the
/// downloader writes on. A new representation is reported at 0 bytes before its first write,
/// so a crash can never pair old validators with new bytes.
public struct DurableProgress: Sendable, Equatable {
    public var durableBytes: Int64
    public var validators: TransferValidators

    public init(durableBytes: Int64, validators: TransferValidators) {
        self.durableBytes = durableBytes
        self.validators = validators
    }
}
