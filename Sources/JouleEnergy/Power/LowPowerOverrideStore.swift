import JouleHardware

/// Where `joule lowpower on|off|auto` keeps the user's choice: one word in
/// `<state dir>/lowpower`, written atomically. A missing or unreadable file means auto.
public struct LowPowerOverrideStore: Sendable {
    public static let fileName = "lowpower"
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var path: String { directory + "/" + Self.fileName }

    /// The stored override; auto when the file is missing, unreadable or holds anything else.
    public func load() -> LowPowerOverride {
        guard let text = try? FileSystem.readText(path) else { return .auto }
        let word = text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        return LowPowerOverride(rawValue: word) ?? .auto
    }

    /// Persists `value`, creating the directory when needed.
    public func save(_ value: LowPowerOverride) throws(HardwareError) {
        try FileSystem.makeDirectories(directory)
        try AtomicFile.write(value.rawValue + "\n", to: path)
    }
}

extension LowPowerOverrideStore {
    /// The store in the current user's state directory, or nil when none can be formed.
    public static func forCurrentUser() -> LowPowerOverrideStore? {
        StateDirectory.current().map { LowPowerOverrideStore(directory: $0.path) }
    }
}
