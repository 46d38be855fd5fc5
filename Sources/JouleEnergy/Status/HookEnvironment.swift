import JouleWire
import JouleHardware

/// The environment an `--exec` hook sees: `JOULE_EVENT` and `JOULE_TIMESTAMP`, then one
/// `JOULE_<UPPER_SNAKE>` variable per field (`warningLevel` → `JOULE_WARNING_LEVEL`), each a
/// JSON scalar as shell-friendly text (strings bare, null empty). Every engine's hooks are
/// built here, so the naming is the same for all of them.
public struct HookEnvironment: Sendable, Equatable {
    public private(set) var variables: [String: String]

    /// `timestamp` is given as text: each engine keeps the form its hooks have always had.
    public init(event: String, timestamp: String) {
        variables = ["JOULE_EVENT": event, "JOULE_TIMESTAMP": timestamp]
    }

    /// Sets `JOULE_<UPPER_SNAKE key>` to the value's plain text.
    public mutating func set(_ key: String, _ value: JSONValue) {
        variables["JOULE_" + Self.upperSnake(key)] = Self.plain(value)
    }

    /// `warningLevel` → `WARNING_LEVEL`.
    public static func upperSnake(_ key: String) -> String {
        var out = ""
        for character in key {
            if character.isUppercase, !out.isEmpty { out += "_" }
            out += character.uppercased()
        }
        return out
    }

    /// A JSON scalar as shell-friendly text: strings bare, null empty.
    public static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .null: ""
        default: value.serialized
        }
    }
}
