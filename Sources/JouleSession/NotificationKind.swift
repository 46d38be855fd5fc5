/// The notifications the agent shows, one episode of each at a time; each can be switched off.
public enum NotificationKind: String, Sendable, Hashable, CaseIterable {
    case lowPowerMode, battery, thermal, cpuMonitor, transfers
}

/// What a notification's action does; the key is what the server sends back in ActionInvoked.
public enum NotificationAction: String, Sendable, Hashable, CaseIterable {
    case turnOffLowPowerMode = "turn-off-low-power-mode"
    case turnOnLowPowerMode = "turn-on-low-power-mode"

    public var label: String {
        switch self {
        case .turnOffLowPowerMode: "Turn Off"
        case .turnOnLowPowerMode: "Turn On Low Power Mode"
        }
    }

    /// The `SetLowPowerMode` argument.
    public var lowPowerMode: String {
        switch self {
        case .turnOffLowPowerMode: "off"
        case .turnOnLowPowerMode: "on"
        }
    }
}

/// A notification's words, urgency (the specification's 0 low, 1 normal, 2 critical) and actions.
public struct NotificationContent: Sendable, Hashable {
    public var summary: String
    public var body: String
    public var urgency: UInt8
    public var actions: [NotificationAction]

    public init(summary: String, body: String, urgency: UInt8, actions: [NotificationAction] = []) {
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.actions = actions
    }
}

/// What the policy asks of the notification server.
public enum NotificationCommand: Sendable, Hashable {
    /// Show, replacing the kind's open notification if there is one.
    case show(NotificationKind, NotificationContent)
    /// The episode is over: close its notification.
    case close(NotificationKind)
    /// The episode is over but its last notification stays up (it says how it ended).
    case end(NotificationKind)
}
