import JouleHardware

/// Why polkit could not answer an authorization question.
package enum PolkitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No polkit on the bus (ServiceUnknown, NameHasNoOwner): a server or container without it.
    case unavailable(BusError)
    /// polkit is there but the call failed: an error reply, a timeout, a closed connection.
    case failed(BusError)
    /// CheckAuthorization answered something other than `(bba{ss})`.
    case badReply([BusValue])

    package var description: String {
        switch self {
        case .unavailable(let error): "polkit is not available: \(error)"
        case .failed(let error): "polkit failed: \(error)"
        case .badReply(let reply): "polkit answered CheckAuthorization with \(reply), not (bba{ss})"
        }
    }

    /// The D-Bus errors that mean nobody owns polkit's name.
    static let absentNames: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]
}
