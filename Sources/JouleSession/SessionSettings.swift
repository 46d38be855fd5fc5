import JouleWorkloads
import Yams

/// The `session:` config of the session agent:
///
/// ```yaml
/// session:
///   notifications: {lowPowerMode: true, battery: true, thermal: true, cpuMonitor: true, transfers: false, sleep: true}
///   lowPowerBrightnessPercent: 40     # null (the default): the backlight is left alone
/// ```
public struct SessionSettings: Sendable, Hashable {
    public var notifications = NotificationSwitches()
    /// The backlight's cap while Low Power Mode is on, 1–100; nil leaves it alone.
    public var lowPowerBrightnessPercent: Int?

    public init() {}

    /// The settings in a config file's text: its `session:` key, other top-level keys being
    /// other parts' (the daemon's). Errors name `file:line:column: key`.
    public static func parse(yaml text: String, file: String) throws(ConfigurationError) -> SessionSettings {
        let reader = YAMLReader(file: file)
        guard let root = try YAMLReader.compose(yaml: text, file: file), !reader.isEmpty(root) else { return SessionSettings() }
        guard let mapping = root.mapping else { throw reader.fail(root, nil, "expected a mapping (key: value), found \(reader.kind(root))") }
        guard let node = mapping["session"] else { return SessionSettings() }
        return try parse(node, reader: reader)
    }

    /// The value of a `session:` key.
    package static func parse(_ node: Node, reader: YAMLReader) throws(ConfigurationError) -> SessionSettings {
        var settings = SessionSettings()
        if reader.isEmpty(node) { return settings }
        for (name, _, value) in try reader.mapping(node, "session", allowed: ["notifications", "lowPowerBrightnessPercent"]) {
            let path = "session.\(name)"
            if name == "lowPowerBrightnessPercent" {
                if value.null != nil { continue }
                let number = try reader.number(value, path, in: 1...100)
                guard number == number.rounded() else { throw reader.fail(value, path, "expected a whole percentage from 1 to 100") }
                settings.lowPowerBrightnessPercent = Int(number)
                continue
            }
            if reader.isEmpty(value) { continue }
            let kinds = NotificationKind.allCases.map(\.rawValue)
            for (kind, _, flag) in try reader.mapping(value, path, allowed: kinds) {
                // `allowed` has vetted the name.
                if let known = NotificationKind(rawValue: kind) {
                    settings.notifications.set(known, try reader.bool(flag, "\(path).\(kind)"))
                }
            }
        }
        return settings
    }
}
