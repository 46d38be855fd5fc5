/// Why Low Power Mode is on or off: the D-Bus property `LowPowerModeSource`.
public enum LowPowerModeSource: String, Sendable, Hashable, CaseIterable {
    /// The battery rule (on at 20 % discharging, off at 80 % charging), also when it is off.
    case auto
    /// `SetLowPowerMode("on"|"off")`, `joule lowpower`, or a profile the user picked while
    /// joule held power-saver.
    case manual
    /// The user chose power-saver in power-profiles-daemon (the desktop's power menu).
    case powerProfilesDaemon = "power-profiles-daemon"
}
