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
