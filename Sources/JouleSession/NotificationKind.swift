/// The notifications the agent shows, one episode of each at a time; each can be switched off.
public enum NotificationKind: String, Sendable, Hashable, CaseIterable {
    case lowPowerMode, battery, thermal, cpuMonitor, transfers, sleep
}
