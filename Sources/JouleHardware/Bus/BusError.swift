/// A failure on D-Bus, naming the sd-bus call (or the remote method) that failed.
public enum BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An sd-bus call returned a negative errno, e.g. `sd_bus_start` on `unix:path=/nope`.
    case system(operation: String, target: String, errno: Errno)
    /// The peer answered with a D-Bus error, e.g. `org.freedesktop.DBus.Error.AccessDenied`.
    case remote(operation: String, target: String, name: String, message: String)
    /// A well-known name is owned by another connection (its pid when the bus told it).
    case nameTaken(name: String, ownerPID: Int32?)
    /// A reply or argument did not have the expected shape.
    case unexpected(operation: String, detail: String)
    /// The connection is closed (or its loop ended).
    case closed(operation: String)

    public var description: String {
        switch self {
        case .system(let operation, let target, let errno): "\(operation) \(target): \(errno)"
        case .remote(let operation, let target, let name, let message): "\(operation) \(target): \(name): \(message)"
        case .nameTaken(let name, let pid?): "\(name) is already owned by pid \(pid)"
        case .nameTaken(let name, nil): "\(name) is already owned by another connection"
        case .unexpected(let operation, let detail): "\(operation): \(detail)"
        case .closed(let operation): "\(operation): the bus connection is closed"
        }
    }

    /// The D-Bus error name of a remote failure.
    public var remoteName: String? { if case .remote(_, _, let name, _) = self { name } else { nil } }
}
