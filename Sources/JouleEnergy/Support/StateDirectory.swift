import JouleHardware

/// Where Joule keeps state between runs: the Low Power Mode override, the pause journal and
/// its lock, resource reports. One rule for every command:
/// `$JOULE_STATE_DIR`; else /var/lib/joule for root; else `$XDG_STATE_HOME/joule` (when
/// absolute, as the XDG spec requires); else `$HOME/.local/state/joule`. None can be formed
/// without HOME: commands then say so instead of writing under `/`.
public struct StateDirectory: Sendable, Hashable, CustomStringConvertible {
    public let path: String

    public init(path: String) {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    public static func resolve(environment: [String: String], isRoot: Bool) -> StateDirectory? {
        if let dir = environment["JOULE_STATE_DIR"], !dir.isEmpty { return StateDirectory(path: dir) }
        if isRoot { return StateDirectory(path: "/var/lib/joule") }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return StateDirectory(path: state + "/joule") }
        if let home = environment["HOME"], !home.isEmpty { return StateDirectory(path: home + "/.local/state/joule") }
        return nil
    }

    /// The directory for the user running this process.
    public static func current() -> StateDirectory? {
        resolve(environment: CurrentProcess.environment(), isRoot: CurrentProcess.isRoot)
    }

    /// The message every command prints when `current()` is nil.
    public static let missingMessage = "no state directory: set JOULE_STATE_DIR or HOME"

    /// A file directly inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Where resource reports go.
    public var reports: String { file("reports") }

    /// Creates the directory (and its parents) when missing.
    public func create(mode: UInt32 = 0o755) throws(HardwareError) {
        try FileSystem.makeDirectories(path, mode: mode)
    }

    public var description: String { path }
}
