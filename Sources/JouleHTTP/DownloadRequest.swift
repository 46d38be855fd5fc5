import JouleHardware
import JouleTransferQueue
/// One download as the queue stores it, handed to `HTTPRangeDownloader.attempt`.
public struct DownloadRequest: Sendable, Equatable {
    public var url: String
    /// Extra request headers (`--header 'K: V'`); Range, If-Range and Accept-Encoding are the
    /// downloader's own and are dropped from here.
    public var headers: [HeaderField]
    /// The final path; bytes go to `destination + ".part"` until verified.
    public var destination: String
    /// Lowercase hex SHA-256 the finished file must have, when given.
    public var sha256: String?
    /// What the `.part` file was written under, and how much of it is durable.
    public var validators: TransferValidators
    public var durableBytes: Int64
    /// Whose rights the `.part` file and the destination are opened with (the transfer's
    /// owner); nil: the process's own.
    public var owner: UserAccount?

    public struct HeaderField: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(
        url: String, headers: [HeaderField] = [], destination: String, sha256: String? = nil,
        validators: TransferValidators = TransferValidators(), durableBytes: Int64 = 0, owner: UserAccount? = nil
    ) {
        self.owner = owner
        self.url = url
        self.headers = headers
        self.destination = destination
        self.sha256 = sha256
        self.validators = validators
        self.durableBytes = durableBytes
    }

    public var partPath: String { destination + ".part" }
}
