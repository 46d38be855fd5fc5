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

/// Why a session setting could not be read or written.
public struct SessionSettingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The setting does not exist here (no such schema or key, no tool, no device).
        case missing
        case failed
    }

    public var kind: Kind
    public var setting: String
    public var detail: String

    public init(_ kind: Kind, setting: String, detail: String) {
        self.kind = kind
        self.setting = setting
        self.detail = detail
    }

    public var description: String { "\(setting): \(detail)" }
}
