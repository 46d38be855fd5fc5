/// What `joule transfer add` was given, and the `TransferRequest` it means: the words of
/// `--method`, `--priority` and `--header` parsed, paths made absolute against the caller's
/// directory (the daemon's means nothing to the caller), and a download without `--to` saved
/// under the URL's last path segment there, as `curl -O` and `wget` do. Checking the request
/// itself is `TransferRequest.validated()`'s.
public struct TransferAddOptions: Sendable, Hashable {
    /// The options that need no parsing, with `--to` as `destination` and `--upload` as
    /// `upload`, both as typed.
    public var given: TransferRequest
    public var method: String?
    public var priority: String?
    public var headers: [String]

    public init(_ given: TransferRequest, method: String? = nil, priority: String? = nil, headers: [String] = []) {
        self.given = given
        self.method = method
        self.priority = priority
        self.headers = headers
    }

    /// The request, with relative paths taken against `workingDirectory` (absolute). What it
    /// refuses is a misuse of the options (exit status 2), worded for the command line.
    public func request(workingDirectory: String) throws(TransferRequest.Invalid) -> TransferRequest {
        var request = given
        if given.destination != nil && given.upload != nil {
            throw TransferRequest.Invalid("--to and --upload exclude each other: a transfer downloads or uploads")
        }
        if let method {
            guard given.upload != nil else { throw TransferRequest.Invalid("--method applies to --upload only (a download is a GET)") }
            guard let parsed = TransferMethod(rawValue: method.uppercased()), parsed.isUpload else {
                throw TransferRequest.Invalid("--method must be PUT or POST, not '\(method)'")
            }
            request.method = parsed
        }
        if let priority {
            guard let parsed = TransferPriority(rawValue: priority) else {
                throw TransferRequest.Invalid("--priority must be high, normal or low, not '\(priority)'")
            }
            request.priority = parsed
        }
        request.headers = []
        for line in headers {
            guard let header = TransferHeader(line: line) else { throw TransferRequest.Invalid("--header must be 'Name: value', not '\(line)'") }
            request.headers.append(header)
        }
        request.upload = given.upload.map { Self.absolute($0, in: workingDirectory) }
        request.destination = given.destination.map { Self.absolute($0, in: workingDirectory) }
        if given.upload == nil && given.destination == nil, let name = Self.lastPathSegment(of: given.url) {
            // A URL that does not parse keeps no destination: validated() then names the URL.
            guard !name.isEmpty, name != ".", name != ".." else {
                throw TransferRequest.Invalid("\(given.url) names no file to save as (its path ends in '/'); give --to PATH")
            }
            request.destination = Self.absolute(name, in: workingDirectory)
        }
        return request
    }

    /// `request(workingDirectory:)` checked as the daemon will check it (`validated()`), so a
    /// bad value is refused before anything runs, worded with the option that gave it
    /// (`--sha256 must be 64 hex digits, not "xyz"`).
    public func validatedRequest(workingDirectory: String) throws(TransferRequest.Invalid) -> TransferRequest {
        let request = try request(workingDirectory: workingDirectory)
        do {
            return try request.validated()
        } catch {
            throw TransferRequest.Invalid(Self.optionWording(error.message))
        }
    }

    /// The option (or argument) each key of the request comes from.
    static let options: [String: String] = [
        "url": "URL", "destination": "--to", "upload": "--upload", "method": "--method", "headers": "--header",
        "priority": "--priority", "batch": "--batch", "timeout": "--timeout", "beginAfter": "--begin-after",
        "sha256": "--sha256", "onComplete": "--on-complete",
    ]

    /// `sha256: must be …` as `--sha256 must be …`; `url: "x" is not a URL` as `URL: "x" is not a URL`.
    static func optionWording(_ message: String) -> String {
        guard let colon = message.firstIndex(of: ":"), let option = options[String(message[..<colon])] else { return message }
        let rest = message[message.index(after: colon)...].drop { $0 == " " }
        return rest.hasPrefix("must ") ? "\(option) \(rest)" : "\(option): \(rest)"
    }

    /// `path` against `directory` when relative, with `.`, `..` and repeated slashes folded
    /// away by name, as `os.path.abspath` does.
    public static func absolute(_ path: String, in directory: String) -> String {
        let joined = path.hasPrefix("/") ? path : directory + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The text after the last `/` of the URL's path, without query or fragment, kept as
    /// written (`curl -O` does not decode it either, so `%2F` cannot become a directory). ""
    /// when the path ends in `/` or is empty; nil when `url` has no `scheme://authority`.
    public static func lastPathSegment(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let rest = url[url.index(colon, offsetBy: 3)...].prefix { $0 != "?" && $0 != "#" }
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        let path = rest[slash...]
        return String(path[path.index(after: path.lastIndex(of: "/")!)...])
    }
}
