/// What identifies the representation a `.part` file holds, from the response that started
/// it: resuming is only safe while these still match (If-Range) and the length agrees.
public struct ResumeValidators: Sendable, Equatable {
    /// A strong ETag, quotes included (`"abc"`); weak ones (`W/"abc"`) never qualify for If-Range.
    public var strongETag: String?
    /// The Last-Modified header as sent, used for If-Range when no strong ETag exists.
    public var lastModified: String?
    /// The complete length in bytes, when the server told it.
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
