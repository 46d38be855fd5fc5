/// Where the app stands in its lifecycle, as joule reports it in every event's `state`.
/// The raw values are the words on the socket.
public enum ApplicationState: String, Sendable, Hashable, CaseIterable {
    case active
    case inactive
    case background
    case suspended
    case terminated

    /// `active` and `inactive` are the foreground; only there is `backgroundTimeRemaining` nil.
    public var isForeground: Bool { self == .active || self == .inactive }
}
