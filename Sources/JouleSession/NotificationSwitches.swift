/// Which notifications are on (`session.notifications` in the config).
public struct NotificationSwitches: Sendable, Hashable {
    public var lowPowerMode = true
    public var battery = true
    public var thermal = true
    public var cpuMonitor = true
    /// Off by default: a finished batch is rarely worth interrupting someone for.
    public var transfers = false
    /// A sleep that drained the battery fast (Energy1's `SleepFlagged`).
    public var sleep = true

    public init() {}

    public func isOn(_ kind: NotificationKind) -> Bool {
        switch kind {
        case .lowPowerMode: lowPowerMode
        case .battery: battery
        case .thermal: thermal
        case .cpuMonitor: cpuMonitor
        case .transfers: transfers
        case .sleep: sleep
        }
    }

    public mutating func set(_ kind: NotificationKind, _ on: Bool) {
        switch kind {
        case .lowPowerMode: lowPowerMode = on
        case .battery: battery = on
        case .thermal: thermal = on
        case .cpuMonitor: cpuMonitor = on
        case .transfers: transfers = on
        case .sleep: sleep = on
        }
    }
}
