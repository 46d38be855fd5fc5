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
