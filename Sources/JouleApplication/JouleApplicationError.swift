import JouleWire

/// What the app side can throw. Malformed packets from joule are never thrown: they are
/// counted (`JouleApplication.ignoredPacketCount`) and the last is kept for diagnostics.
public enum JouleApplicationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// socket(2) or connect(2) failed; names the path so a wrong JOULE_LIFECYCLE_SOCKET shows.
    case connectFailed(path: String, errno: Int32, reason: String)
    /// The connection is closed (by `close()` or by joule); its tasks have ended.
    case closed
    case sendFailed(errno: Int32, reason: String)
    /// A request above the protocol's 4096 bytes (a very long task name).
    case requestTooLarge(bytes: Int)
    /// A reply that did not match the request waiting for it (e.g. `taskId` for a
    /// `backgroundTimeRemaining`); that request fails so later replies stay paired.
    case unexpectedReply(String)
    /// The reader thread could not be started.
    case readerThreadFailed(errno: Int32)

    public var description: String {
        switch self {
        case .connectFailed(let path, let errno, let reason):
            return "cannot connect to joule's lifecycle socket at \(path): \(reason) (errno \(errno))"
        case .closed:
            return "the lifecycle connection is closed"
        case .sendFailed(let errno, let reason):
            return "sending to joule's lifecycle socket failed: \(reason) (errno \(errno))"
        case .requestTooLarge(let bytes):
            return "request of \(bytes) bytes exceeds the lifecycle protocol's \(LifecycleMessage.maxBytes)"
        case .unexpectedReply(let detail):
            return "unexpected reply from joule: \(detail)"
        case .readerThreadFailed(let errno):
            return "cannot start the lifecycle reader thread (errno \(errno))"
        }
    }
}
