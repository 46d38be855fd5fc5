/// A transition of a supervised app, one line each in `joule app events`. Its raw value is the
/// binding JSON word.
public enum AppLifecycleEvent: String, Sendable, Hashable, CaseIterable, LifecycleWord {
    case willResignActive
    case didEnterBackground
    case backgroundTaskBegan
    case backgroundTaskEnded
    case backgroundTimeWillExpire
    case suspended
    case willEnterForeground
    case didBecomeActive
    case killed
    case exited

    /// Whether the app hears this event on its lifecycle socket: the four lifecycle callbacks
    /// and the expiration warning. The others are joule's record of what it did (a suspended
    /// or killed app cannot read, and the app began or ended its tasks itself).
    public var isSentToApp: Bool {
        switch self {
        case .willResignActive, .didEnterBackground, .backgroundTimeWillExpire, .willEnterForeground, .didBecomeActive: true
        case .backgroundTaskBegan, .backgroundTaskEnded, .suspended, .killed, .exited: false
        }
    }
}
