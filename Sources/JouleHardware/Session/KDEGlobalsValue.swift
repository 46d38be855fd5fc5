/// A key in KDE's `kdeglobals` (`AnimationDurationFactor` in `[KDE]`: 0 turns animations off),
/// edited in place with every other byte kept, then KWin told to reload its config.
public struct KDEGlobalsValue: SessionSetting {
    public let path: String
    public let group: String
    public let key: String
    /// Sends KWin's `reloadConfig` signal after a write (nil: nobody to tell).
    public let reload: (@Sendable () async -> Void)?

    public init(path: String, group: String, key: String, reload: (@Sendable () async -> Void)?) {
        self.path = path
        self.group = group
        self.key = key
        self.reload = reload
    }

    /// `CONFIG/kdeglobals`'s `[KDE] AnimationDurationFactor`, with KWin told on `bus`.
    public static func animations(configHome: String, bus: BusConnection?) -> KDEGlobalsValue {
        var reload: (@Sendable () async -> Void)?
        if let bus {
            reload = { try? await KWin.reloadConfig(on: bus) }
        }
        return KDEGlobalsValue(path: configHome + "/kdeglobals", group: "KDE", key: "AnimationDurationFactor", reload: reload)
    }

    /// Where KDE is: the file exists, or the desktop says so.
    public static func isPresent(configHome: String, currentDesktop: String?) -> Bool {
        FileSystem.kind(of: configHome + "/kdeglobals") != nil
            || (currentDesktop ?? "").split(separator: ":").contains { $0.uppercased() == "KDE" }
    }

    public var id: String { "kdeglobals \(path) [\(group)] \(key)" }

    public func read() async throws(SessionSettingError) -> String? {
        guard let text = try contents() else { return nil }
        return KConfigText.value(in: text, group: group, key: key)
    }

    public func write(_ value: String?) async throws(SessionSettingError) {
        let text = try contents() ?? ""
        let edited = KConfigText.setting(value, in: text, group: group, key: key)
        if edited != text {
            do {
                // Atomically: KWin or System Settings may read it at any moment.
                try AtomicFile.write(edited, to: path, mode: 0o644)
            } catch {
                throw SessionSettingError(.failed, setting: id, detail: "cannot write: \(error)")
            }
        }
        await reload?()
    }

    private func contents() throws(SessionSettingError) -> String? {
        do {
            return try FileSystem.readText(path)
        } catch {
            if error.errno == .noEntry { return nil }
            throw SessionSettingError(.failed, setting: id, detail: "cannot read: \(error)")
        }
    }
}
