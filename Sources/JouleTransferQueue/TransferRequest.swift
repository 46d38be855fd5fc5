import JouleHardware

/// What a client asks `org.joule.Transfers1.Add` for: the `a{sv}` request as a value. Both
/// sides use it, so the CLI, the Swift API and the daemon cannot disagree on key names or
/// types. `validated()` checks what needs no file system; the daemon checks paths as the owner.
public struct TransferRequest: Sendable, Hashable {
    public var url: String
    /// A download's final path (absolute).
    public var destination: String?
    /// An upload's source file (absolute).
    public var upload: String?
    /// nil: GET for a download, PUT for an upload.
    public var method: TransferMethod?
    public var headers: [TransferHeader]
    public var discretionary: Bool
    public var unmeteredOnly: Bool
    public var requireAC: Bool
    public var priority: TransferPriority
    public var batch: String?
    /// Seconds from now until the deadline; nil: the daemon's `defaultTimeout`.
    public var timeout: Double?
    /// Seconds from now before which it must not begin.
    public var beginAfter: Double?
    public var sha256: String?
    public var onComplete: String?
    /// The Swift API's session identifier.
    public var session: String?

    public init(
        url: String, destination: String? = nil, upload: String? = nil, method: TransferMethod? = nil,
        headers: [TransferHeader] = [], discretionary: Bool = false, unmeteredOnly: Bool = false,
        requireAC: Bool = false, priority: TransferPriority = .normal, batch: String? = nil, timeout: Double? = nil,
        beginAfter: Double? = nil, sha256: String? = nil, onComplete: String? = nil, session: String? = nil
    ) {
        self.url = url
        self.destination = destination
        self.upload = upload
        self.method = method
        self.headers = headers
        self.discretionary = discretionary
        self.unmeteredOnly = unmeteredOnly
        self.requireAC = requireAC
        self.priority = priority
        self.batch = batch
        self.timeout = timeout
        self.beginAfter = beginAfter
        self.sha256 = sha256
        self.onComplete = onComplete
        self.session = session
    }

    /// Why a request was refused: the key and what is wrong with it.
    public struct Invalid: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// The method actually used.
    public var effectiveMethod: TransferMethod { method ?? (upload == nil ? .get : .put) }

    /// The `a{sv}` sent to `Add`: only the keys that are set.
    public var busValue: BusValue {
        var entries: [(String, BusValue)] = [("url", .string(url))]
        if let destination { entries.append(("destination", .string(destination))) }
        if let upload { entries.append(("upload", .string(upload))) }
        if let method { entries.append(("method", .string(method.rawValue))) }
        if !headers.isEmpty { entries.append(("headers", .array(elementSignature: "s", headers.map { .string($0.line) }))) }
        if discretionary { entries.append(("discretionary", .bool(true))) }
        if unmeteredOnly { entries.append(("unmeteredOnly", .bool(true))) }
        if requireAC { entries.append(("requireAC", .bool(true))) }
        if priority != .normal { entries.append(("priority", .string(priority.rawValue))) }
        if let batch { entries.append(("batch", .string(batch))) }
        if let timeout { entries.append(("timeout", .double(timeout))) }
        if let beginAfter { entries.append(("beginAfter", .double(beginAfter))) }
        if let sha256 { entries.append(("sha256", .string(sha256))) }
        if let onComplete { entries.append(("onComplete", .string(onComplete))) }
        if let session { entries.append(("session", .string(session))) }
        return .variantDictionary(entries)
    }

    /// Decodes `Add`'s argument: every key known, every value of its type, `url` present.
    public init(busValue: BusValue) throws(Invalid) {
        guard case .array(let signature, let entries) = busValue, signature == "{sv}" else {
            throw Invalid("the request must be a{sv}, not \(busValue.signature)")
        }
        var fields: [String: BusValue] = [:]
        for entry in entries {
            guard case .dictEntry(let key, let value) = entry, let name = key.stringValue else {
                throw Invalid("the request must be a{sv}")
            }
            guard fields[name] == nil else { throw Invalid("\(name): given twice") }
            fields[name] = value.unwrapped
        }
        func string(_ key: String) throws(Invalid) -> String? {
            guard let value = fields.removeValue(forKey: key) else { return nil }
            guard case .string(let text) = value else { throw Invalid("\(key): must be a string (s), not \(value.signature)") }
            return text
        }
        func bool(_ key: String) throws(Invalid) -> Bool {
            guard let value = fields.removeValue(forKey: key) else { return false }
            guard case .bool(let flag) = value else { throw Invalid("\(key): must be a boolean (b), not \(value.signature)") }
            return flag
        }
        func seconds(_ key: String) throws(Invalid) -> Double? {
            guard let value = fields.removeValue(forKey: key) else { return nil }
            switch value {
            case .double(let v): return v
            case .int32(let v): return Double(v)
            case .uint32(let v): return Double(v)
            case .int64(let v): return Double(v)
            case .uint64(let v): return Double(v)
            default: throw Invalid("\(key): must be seconds (d), not \(value.signature)")
            }
        }
        guard let url = try string("url") else { throw Invalid("url: missing") }
        self.url = url
        destination = try string("destination")
        upload = try string("upload")
        if let word = try string("method") {
            guard let method = TransferMethod(rawValue: word.uppercased()) else {
                throw Invalid("method: must be GET, PUT or POST, not \"\(word)\"")
            }
            self.method = method
        }
        headers = []
        if let value = fields.removeValue(forKey: "headers") {
            guard case .array(let element, let lines) = value, element == "s" else {
                throw Invalid("headers: must be an array of \"K: V\" strings (as), not \(value.signature)")
            }
            for line in lines {
                let text = line.stringValue ?? ""
                guard let header = TransferHeader(line: text) else {
                    throw Invalid("headers: \"\(Self.clip(text))\" is not \"Name: value\" on one line")
                }
                headers.append(header)
            }
        }
        discretionary = try bool("discretionary")
        unmeteredOnly = try bool("unmeteredOnly")
        requireAC = try bool("requireAC")
        priority = .normal
        if let word = try string("priority") {
            guard let priority = TransferPriority(rawValue: word) else {
                throw Invalid("priority: must be high, normal or low, not \"\(Self.clip(word))\"")
            }
            self.priority = priority
        }
        batch = try string("batch")
        timeout = try seconds("timeout")
        beginAfter = try seconds("beginAfter")
        sha256 = try string("sha256")
        onComplete = try string("onComplete")
        session = try string("session")
        if let unknown = fields.keys.sorted().first {
            throw Invalid("\(Self.clip(unknown)): unknown key (known: \(Self.keys.joined(separator: ", ")))")
        }
    }

    /// Every key `Add` understands.
    public static let keys = [
        "url", "destination", "upload", "method", "headers", "discretionary", "unmeteredOnly", "requireAC", "priority",
        "batch", "timeout", "beginAfter", "sha256", "onComplete", "session",
    ]

    /// The checks that need no file system: the URL's scheme and host, one of destination or
    /// upload as an absolute path, the method fitting the direction, a sha256 of 64 hex digits,
    /// finite positive timeouts. Returns the request with the sha256 lowercased.
    public func validated() throws(Invalid) -> TransferRequest {
        var request = self
        try Self.checkURL(url)
        switch (destination, upload) {
        case (nil, nil): throw Invalid("destination: a download needs a destination (or give upload for an upload)")
        case (.some, .some): throw Invalid("destination and upload: give one, not both")
        case (let path?, nil):
            try Self.checkPath(path, key: "destination")
            if effectiveMethod != .get { throw Invalid("method: a download is a GET, not \(effectiveMethod.rawValue)") }
            if path.hasSuffix("/") { throw Invalid("destination: \(path) names a directory; give the file's path") }
        case (nil, let path?):
            try Self.checkPath(path, key: "upload")
            if effectiveMethod == .get { throw Invalid("method: an upload is a PUT or POST, not GET") }
            if sha256 != nil { throw Invalid("sha256: only a download's body can be checked") }
        }
        if let sha256 {
            let lower = sha256.lowercased()
            guard lower.utf8.count == 64, lower.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else {
                throw Invalid("sha256: must be 64 hex digits, not \"\(Self.clip(sha256))\"")
            }
            request.sha256 = lower
        }
        if let timeout, !(timeout.isFinite && timeout > 0 && timeout <= Self.longestWait) {
            throw Invalid("timeout: must be a positive number of seconds up to \(Int(Self.longestWait)) (a year), not \(timeout)")
        }
        if let beginAfter, !(beginAfter.isFinite && beginAfter >= 0 && beginAfter <= Self.longestWait) {
            throw Invalid("beginAfter: must be 0 to \(Int(Self.longestWait)) seconds (a year), not \(beginAfter)")
        }
        if let batch, batch.isEmpty || batch.utf8.count > 255 { throw Invalid("batch: must be 1 to 255 bytes") }
        if let session, session.isEmpty || session.utf8.count > 255 { throw Invalid("session: must be 1 to 255 bytes") }
        if let onComplete, onComplete.isEmpty { throw Invalid("onComplete: empty command") }
        if let onComplete, onComplete.utf8.count > 4096 { throw Invalid("onComplete: longer than 4096 bytes") }
        if url.utf8.count > 8192 { throw Invalid("url: longer than 8192 bytes") }
        if headers.count > 64 { throw Invalid("headers: more than 64") }
        if let long = headers.first(where: { $0.line.utf8.count > 8192 }) {
            throw Invalid("headers: \"\(Self.clip(long.line))\" is longer than 8192 bytes")
        }
        return request
    }

    /// The longest timeout or delay a transfer may ask for: a year (NSURLSession's resource
    /// timeout defaults to 7 days, BITS's to 14); beyond it a deadline is no longer a date.
    public static let longestWait = 366.0 * 86_400

    /// http or https with a host and, when given, a port from 1 to 65535; nothing else goes
    /// over the network (a port beyond 16 bits trapped in the HTTP stack, taking the daemon down
    /// with every restart, since the transfer was stored).
    public static func checkURL(_ url: String) throws(Invalid) {
        guard let colon = url.firstIndex(of: ":") else { throw Invalid("url: \"\(clip(url))\" is not a URL") }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw Invalid("url: unsupported scheme \"\(clip(scheme))\" (http and https only)")
        }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw Invalid("url: \"\(clip(url))\" has no host") }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        guard !host.isEmpty, !host.hasPrefix(":") else { throw Invalid("url: \"\(clip(url))\" has no host") }
        // The port follows the last ':' outside an IPv6 literal's brackets.
        let afterBracket = host.lastIndex(of: "]").map { host[host.index(after: $0)...] } ?? host[...]
        if let colon = afterBracket.lastIndex(of: ":") {
            let port = afterBracket[afterBracket.index(after: colon)...]
            guard port.isEmpty || (port.utf8.count <= 5 && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber)
                && (1...65535).contains(Int(port) ?? 0))
            else { throw Invalid("url: port \"\(clip(port))\" is not a port (1 to 65535)") }
        }
        guard !url.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw Invalid("url: \"\(clip(url))\" contains whitespace")
        }
    }

    static func checkPath(_ path: String, key: String) throws(Invalid) {
        guard path.hasPrefix("/") else { throw Invalid("\(key): \"\(clip(path))\" is not an absolute path") }
        guard !path.utf8.contains(0), path.utf8.count <= 4096 else { throw Invalid("\(key): not a usable path") }
    }

    /// At most 200 characters of a caller's text in a message (a 1 MiB string stays out of logs).
    package static func clip(_ text: some StringProtocol) -> String {
        text.count <= 200 ? String(text) : String(text.prefix(200)) + "…"
    }
}
