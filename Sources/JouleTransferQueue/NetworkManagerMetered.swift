/// NetworkManager's verdict on the primary connection, NMMetered (nm-dbus-interface.h). Here,
/// beside the rule that reads it, so the queue does not depend on the NetworkManager client.
public enum NetworkManagerMetered: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case unknown = 0
    case yes = 1
    case no = 2
    case guessYes = 3
    case guessNo = 4

    /// YES and GUESS_YES; UNKNOWN is not metered here (callers fall back to the route).
    public var isMetered: Bool { self == .yes || self == .guessYes }

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .yes: "yes"
        case .no: "no"
        case .guessYes: "guess-yes"
        case .guessNo: "guess-no"
        }
    }
}
