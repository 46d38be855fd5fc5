import JouleHardware
import JouleTransferQueue

/// One upload as the queue stores it, handed to `HTTPUploader.attempt`.
public struct UploadRequest: Sendable, Equatable {
    public var url: String
    /// `.put` or `.post`.
    public var method: TransferMethod
    /// Extra request headers (`--header 'K: V'`), e.g. Content-Type. Content-Length,
    /// Transfer-Encoding and Expect are the uploader's own and are dropped from here.
    public var headers: [TransferHeader]
    /// The file whose bytes are the body, read afresh on every attempt.
    public var source: String
    /// Whose rights the source is read with (the transfer's owner); nil: the process's own.
    public var owner: UserAccount?

    public init(url: String, method: TransferMethod = .put, headers: [TransferHeader] = [], source: String, owner: UserAccount? = nil) {
        self.owner = owner
        self.url = url
        self.method = method
        self.headers = headers
        self.source = source
    }
}
