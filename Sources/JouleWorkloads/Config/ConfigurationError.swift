/// A YAML file (an enforce policy, the daemon's config) that cannot be used, naming the file,
/// the position and the key.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based, when the YAML parser or the offending node knows it.
    public var line: Int?
    public var column: Int?
    /// The key path, e.g. `classes.backups.match[1].unit`; nil for syntax errors.
    public var key: String?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// `FILE:LINE:COLUMN: KEY: MESSAGE`, leaving out what is unknown.
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let key { text += "\(key): " }
        return text + message
    }
}

/// The name enforce policies have always thrown.
public typealias EnforcePolicyError = ConfigurationError
