import JouleHardware

/// Where `joule lowpower on|off|auto` keeps the user's choice: one word in
/// `<state dir>/lowpower`, written atomically. A missing or unreadable file means auto.
public struct LowPowerOverrideStore: Sendable {
    public static let fileName = "lowpower"
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// `$JOULE_STATE_DIR`; else /var/lib/joule for root; else `$XDG_STATE_HOME/joule`;
    /// else `$HOME/.local/state/joule`. nil when none can be formed (no HOME).
    public static func defaultDirectory(environment: [String: String], isRoot: Bool) -> String? {
        if let dir = environment["JOULE_STATE_DIR"], !dir.isEmpty { return dir }
        if isRoot { return "/var/lib/joule" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/joule" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/joule" }
        return nil
    }

    public var path: String { directory + "/" + Self.fileName }

    /// The stored override; auto when the file is missing, unreadable or holds anything else.
    public func load() -> LowPowerOverride {
        guard let text = try? Syscalls.readText(path) else { return .auto }
        let word = text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        return LowPowerOverride(rawValue: word) ?? .auto
    }

    /// Persists `value`, creating the directory when needed.
    public func save(_ value: LowPowerOverride) throws(HardwareError) {
        try Syscalls.makeDirectories(directory)
        try Syscalls.writeFileAtomically(path, Array((value.rawValue + "\n").utf8))
    }
}

extension LowPowerOverrideStore {
    /// The store for the user running this process, or nil when no state directory can be
    /// formed (no JOULE_STATE_DIR, not root, no HOME).
    public static func forCurrentUser() -> LowPowerOverrideStore? {
        defaultDirectory(environment: Syscalls.environment(), isRoot: Syscalls.effectiveUserID() == 0)
            .map(LowPowerOverrideStore.init(directory:))
    }
}
