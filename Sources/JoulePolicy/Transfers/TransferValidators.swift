/// What identifies the exact bytes being resumed: a Range request is sent with `If-Range` set
/// to the strong ETag, else to Last-Modified, and a 206 is accepted only when its length
/// matches `totalLength`.
public struct TransferValidators: Sendable, Hashable {
    /// A strong ETag, quotes included (`"abc"`); weak ones (`W/"…"`) cannot guard a range.
    public var strongETag: String?
    /// The Last-Modified header as received.
    public var lastModified: String?
    /// The full length in bytes; nil while unknown.
    public var totalLength: Int64?

    public init(strongETag: String? = nil, lastModified: String? = nil, totalLength: Int64? = nil) {
        self.strongETag = strongETag
        self.lastModified = lastModified
        self.totalLength = totalLength
    }
}
