/// The user's choice for Low Power Mode: forced on, forced off, or derived from the battery.
public enum LowPowerOverride: String, Sendable, Hashable, CaseIterable {
    case on, off, auto
}
