/// A GSettings key, through the real `gsettings` tool (libglib2.0-bin), which writes through
/// dconf-service on the session bus as every GNOME program does; values are GVariant text
/// (`false`, `'slide'`, `uint32 5`).
public struct GSettingsValue: SessionSetting {
    public let schema: String
    public let key: String
    /// The tool's environment: the session bus (`DBUS_SESSION_BUS_ADDRESS`), `XDG_CONFIG_HOME`, PATH.
    public let environment: [String: String]
    /// The key's dconf path (`/org/gnome/desktop/interface/enable-animations`), when known: a
    /// key at its default reads as unset there, so restoring it resets it rather than pinning
    /// the default as the user's own choice. gsettings cannot tell the two apart.
    public let dconfPath: String?

    public init(schema: String, key: String, dconfPath: String? = nil, environment: [String: String]) {
        self.schema = schema
        self.key = key
        self.dconfPath = dconfPath
        self.environment = environment
    }

    /// Low Power Mode's animation switch on GNOME.
    public static func animations(environment: [String: String]) -> GSettingsValue {
        GSettingsValue(
            schema: "org.gnome.desktop.interface", key: "enable-animations",
            dconfPath: "/org/gnome/desktop/interface/enable-animations", environment: environment)
    }

    public var id: String { "gsettings \(schema) \(key)" }

    /// The value, or nil when it is at its default in dconf (with `dconfPath` and dconf-cli).
    public func read() async throws(SessionSettingError) -> String? {
        let value = try await run(["get", schema, key])
        guard let dconfPath,
              let stored = try? await ProgramOutput.run(["dconf", "read", dconfPath], environment: environment),
              stored.status == 0
        else { return value }
        return stored.text.sessionTrimmed.isEmpty ? nil : value
    }

    public func write(_ value: String?) async throws(SessionSettingError) {
        _ = try await run(value.map { ["set", schema, key, $0] } ?? ["reset", schema, key])
    }

    private func run(_ arguments: [String]) async throws(SessionSettingError) -> String {
        let output: ProgramOutput
        do {
            output = try await ProgramOutput.run(["gsettings"] + arguments, environment: environment)
        } catch {
            let missing = error.errno == .noEntry
            throw SessionSettingError(
                missing ? .missing : .failed, setting: id,
                detail: missing ? "gsettings is not installed (libglib2.0-bin)" : "gsettings could not start: \(error)")
        }
        let text = output.text.sessionTrimmed
        guard output.status == 0 else {
            // gsettings says "No such schema “…”" or "No such key “…”" and exits 1.
            let missing = text.contains("No such schema") || text.contains("No such key")
            throw SessionSettingError(
                missing ? .missing : .failed, setting: id,
                detail: "gsettings \(arguments[0]) exited with status \(output.status): \(text.isEmpty ? "no output" : text)")
        }
        return text
    }
}
