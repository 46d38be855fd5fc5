
/// Why one message on the lifecycle socket could not be read. Each names what is wrong, for
/// the log line: a bad message is ignored and logged, never a crash.
public enum LifecycleMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Longer than `LifecycleMessage.maxBytes` (or cut short by the socket).
    case tooLarge(bytes: Int, limit: Int)
    case notJSON(JSONParseError)
    /// Valid JSON, but not an object.
    case notAnObject
    /// An object without `request` (from an app) or any known key (from joule).
    case unrecognized(String)
    /// `request` names no request of the protocol.
    case unknownRequest(String)
    case missingKey(String, in: String)
    case wrongType(String, in: String, expected: String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): "message too large: \(bytes) bytes, the limit is \(limit)"
        case .notJSON(let error): "message is not JSON: \(error)"
        case .notAnObject: "message is not a JSON object"
        case .unrecognized(let what): "message not understood: \(what)"
        case .unknownRequest(let name): "unknown request \"\(name)\": expected beginBackgroundTask, endBackgroundTask or backgroundTimeRemaining"
        case .missingKey(let key, let message): "\(message): missing \"\(key)\""
        case .wrongType(let key, let message, let expected): "\(message): \"\(key)\" must be \(expected)"
        }
    }
}
