/// A transition asked of the supervisor, by `joule app foreground|inactive|background|suspend|
/// terminate NAME`, by `org.joule.Apps1`, or by the session going locked or idle (`inactive`).
public enum AppLifecycleRequest: String, Sendable, Hashable, CaseIterable, LifecycleWord {
    case foreground
    case inactive
    case background
    case suspend
    case terminate
}
