/// Why a `status --json` object (a daemon's `GetStatus` reply) could not be read back: the
/// key, as a path like `batteries[1].percentage`, and what was wrong with it.
public struct StatusReportDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}
