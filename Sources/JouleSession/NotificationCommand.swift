/// What the policy asks of the notification server.
public enum NotificationCommand: Sendable, Hashable {
    /// Show, replacing the kind's open notification if there is one.
    case show(NotificationKind, NotificationContent)
    /// The episode is over: close its notification.
    case close(NotificationKind)
    /// The episode is over but its last notification stays up (it says how it ended).
    case end(NotificationKind)
}
