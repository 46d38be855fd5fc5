import JouleWire
import JouleHardware
import JouleTransferQueue

/// A failure of a `TransfersClient` call. A refusal by the daemon reads as the daemon's own
/// message ("destination: /x/y: no such directory"), which is what a user should see.
public enum TransfersError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No connection owns `org.joule.Transfers1` on the session or the system bus.
    case notRunning
    /// The daemon answered with a D-Bus error: its name (`TransfersBus.notFoundError`,
    /// `org.freedesktop.DBus.Error.InvalidArgs`, …) and message.
    case refused(name: String, message: String)
    /// The bus failed (a closed connection, a timeout), or the daemon left it.
    case bus(BusError)
    /// The request was refused before it was sent (`TransferRequest.validated()`).
    case invalid(TransferRequest.Invalid)
    /// An id prefix that fits more than one transfer.
    case ambiguous(prefix: String, ids: [String])
    /// A reply that breaks the contract, e.g. a transfer object with a bad key.
    case malformedReply(operation: String, detail: String)

    public var description: String {
        switch self {
        case .notRunning: "joule daemon is not running on the session or system bus (nobody owns \(TransfersBus.busName))"
        case .refused(_, let message): message
        case .invalid(let invalid): invalid.message
        case .ambiguous(let prefix, let ids): "\(prefix) fits \(ids.count) transfers (\(ids.joined(separator: ", "))); give more of the id"
        case .bus(let error): "\(error)"
        case .malformedReply(let operation, let detail): "\(operation): unexpected reply: \(detail)"
        }
    }

    /// A bus failure, with the daemon's refusals lifted out as `.refused`, and the answer of a
    /// bus on which the daemon vanished as `.notRunning`.
    init(_ error: BusError) {
        switch error {
        case .remote(_, _, "org.freedesktop.DBus.Error.ServiceUnknown", _), .remote(_, _, "org.freedesktop.DBus.Error.NameHasNoOwner", _):
            self = .notRunning
        case .remote(_, _, let name, let message): self = .refused(name: name, message: message)
        default: self = .bus(error)
        }
    }

    /// The D-Bus error name of a refusal.
    public var errorName: String? { if case .refused(let name, _) = self { name } else { nil } }

    /// The daemon found a value of the request wrong (`InvalidArgs`), e.g. a missing directory.
    public var isInvalidArgument: Bool { errorName == BusMethodError.invalidArgs("").name }

    /// No such transfer, or one the caller may not see.
    public var isNotFound: Bool { errorName == TransfersBus.notFoundError }
}
