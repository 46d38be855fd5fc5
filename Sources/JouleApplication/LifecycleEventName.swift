/// The words in an event's `event` key. An app only ever hears the first five; the rest exist
/// in joule's own log and are decoded too, so a newer joule that sends them is not "malformed".
public enum LifecycleEventName: String, Sendable, Hashable, CaseIterable {
    case willResignActive
    case didEnterBackground
    case backgroundTimeWillExpire
    case willEnterForeground
    case didBecomeActive
    case backgroundTaskBegan
    case backgroundTaskEnded
    case suspended
    case killed
    case exited
}
