/// Why a JSON object of one of joule's contracts could not be read back (a daemon's
/// `GetStatus`, a transfer of `Get` or `List`): the key, as a path like
/// `batteries[1].percentage` or `[3].state` ("" for the whole text), and what was wrong with it.
public struct JSONDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
}
