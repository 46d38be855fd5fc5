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

    /// The If-Range value: the strong ETag, else Last-Modified; nil when neither exists, and
    /// then there is no safe resume.
    public var ifRange: String? { strongETag ?? lastModified }

    /// A response's ETag when it is strong.
    public static func strong(_ etag: String?) -> String? {
        guard let etag = etag?.trimmingSpaces, etag.hasPrefix("\""), etag.count >= 2, etag.hasSuffix("\"") else { return nil }
        return etag
    }
}
