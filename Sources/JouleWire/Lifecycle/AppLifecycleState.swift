/// Where a supervised app stands, as iOS names it: `active` in the foreground and receiving
/// input, `inactive` in the foreground but not receiving it (the session is locked or idle),
/// `background` still running, `suspended` frozen, `terminated` gone.
public enum AppLifecycleState: String, Sendable, Hashable, CaseIterable, LifecycleWord {
    case active
    case inactive
    case background
    case suspended
    case terminated

    /// Whether the app is in the foreground (active or inactive).
    public var isForeground: Bool { self == .active || self == .inactive }
}
