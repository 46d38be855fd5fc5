import JouleTransferQueue
/// What to do with a response head before writing a byte of its body (issue 13, "HTTP,
/// correctly"). Pure: status, the few headers that matter, the offset asked for and the stored
/// validators in; a verdict out.
public enum ResponseHeadCheck: Sendable, Equatable {
    /// Write the body at `offset` (0 after a 200, N after an accepted 206), expecting the
    /// representation described by `validators`.
    case write(offset: Int64, validators: TransferValidators)
    /// A 416 `bytes */L` with L equal to the bytes already kept (and to the known length, if
    /// one is known): the file is complete (RFC 9110 §15.5.17, as `curl -C -` takes it).
    case alreadyComplete
    /// The partial answer cannot be trusted: truncate the `.part` file and ask again from 0.
    case restart(reason: String)
    /// Try again later (408, 429, 5xx, other unexpected answers), honouring `retryAfter`.
    case retry(reason: String, retryAfter: String?)
    /// A client error other than 408/429: retrying cannot help.
    case fail(reason: String)

    /// The response headers this check reads, lowercased names.
    public struct Head: Sendable, Equatable {
        public var status: Int
        public var contentRange: String?
        public var contentLength: Int64?
        public var contentEncoding: String?
        public var etag: String?
        public var lastModified: String?
        public var retryAfter: String?
        /// A redirect's target, as sent.
        public var location: String?

        public init(
            status: Int, contentRange: String? = nil, contentLength: Int64? = nil, contentEncoding: String? = nil,
            etag: String? = nil, lastModified: String? = nil, retryAfter: String? = nil, location: String? = nil
        ) {
            self.location = location
            self.status = status
            self.contentRange = contentRange
            self.contentLength = contentLength
            self.contentEncoding = contentEncoding
            self.etag = etag
            self.lastModified = lastModified
            self.retryAfter = retryAfter
        }
    }

    /// The lowercased scheme of an absolute Location (`file`, `ftp`, …); nil for a relative one.
    static func redirectScheme(_ location: String?) -> String? {
        guard let location = location?.trimmingSpaces, let colon = location.firstIndex(of: ":") else { return nil }
        let scheme = location[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// - Parameters:
    ///   - requestedOffset: N of `Range: bytes=N-`, or 0 when no Range was sent.
    ///   - stored: the validators the `.part` file was written under (ignored when N is 0).
    public static func evaluate(_ head: Head, requestedOffset: Int64, stored: TransferValidators) -> ResponseHeadCheck {
        if let encoding = head.contentEncoding?.trimmingSpaces.lowercased(), !encoding.isEmpty, encoding != "identity" {
            // We asked for identity; a coded body's bytes are not the file's bytes at any offset.
            return .retry(reason: "unexpected Content-Encoding \(encoding)", retryAfter: nil)
        }
        switch head.status {
        case 200:
            let fresh = TransferValidators(
                strongETag: TransferValidators.strong(head.etag), lastModified: head.lastModified,
                totalLength: head.contentLength)
            return .write(offset: 0, validators: fresh)
        case 206:
            guard requestedOffset > 0 else { return .restart(reason: "206 to a request without Range") }
            guard let text = head.contentRange, case .range(let first, _, let length)? = ContentRange(text) else {
                return .restart(reason: "206 without a usable Content-Range (\(head.contentRange ?? "none"))")
            }
            guard first == requestedOffset else {
                return .restart(reason: "206 Content-Range \(text) does not start at \(requestedOffset)")
            }
            // A known length must match; one the first answer did not give (a chunked 200) is
            // learnt here, as `curl -C -` resumes without knowing it. `*` tells nothing.
            guard let length, stored.totalLength.map({ $0 == length }) ?? true else {
                return .restart(reason: "206 Content-Range \(text) does not match the known length \(stored.totalLength.map(String.init) ?? "unknown")")
            }
            if let stored = stored.strongETag, let sent = TransferValidators.strong(head.etag), sent != stored {
                return .restart(reason: "206 with ETag \(sent), expected \(stored)")
            }
            var validators = stored
            validators.totalLength = length
            return .write(offset: requestedOffset, validators: validators)
        case 416:
            if requestedOffset > 0, let text = head.contentRange, case .unsatisfied(let length)? = ContentRange(text),
               length == requestedOffset, stored.totalLength.map({ $0 == length }) ?? true
            {
                return .alreadyComplete
            }
            return .restart(reason: "416 with Content-Range \(head.contentRange ?? "none")")
        case 300..<400 where redirectScheme(head.location).map { $0 != "http" && $0 != "https" } ?? false:
            // AsyncHTTPClient hands back what it will not follow; say why instead of retrying.
            return .fail(reason: "HTTP \(head.status) redirect to \(redirectScheme(head.location) ?? ""): refused; only http and https are followed")
        case 408, 429:
            return .retry(reason: "HTTP \(head.status)", retryAfter: head.retryAfter)
        case 400..<500:
            return .fail(reason: "HTTP \(head.status)")
        case 500..<600:
            return .retry(reason: "HTTP \(head.status)", retryAfter: head.retryAfter)
        default:
            return .retry(reason: "unexpected HTTP \(head.status)", retryAfter: head.retryAfter)
        }
    }
}
