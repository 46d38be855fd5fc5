/// One desktop setting the session agent may change while Low Power Mode is on (an animation
/// switch, a backlight), read and written as text so one journal holds them all.
public protocol SessionSetting: Sendable {
    /// Stable across runs: the journal's key (`gsettings org.gnome.desktop.interface enable-animations`).
    var id: String { get }
    /// The current value; nil when it is unset (a key absent from its file).
    func read() async throws(SessionSettingError) -> String?
    /// Sets the value; nil removes it (back to the desktop's default).
    func write(_ value: String?) async throws(SessionSettingError)
}
