import JouleHardware

/// Where Joule keeps what must not outlive the boot, such as the journal of knob writes:
/// `$JOULE_RUNTIME_DIR`; else /run/joule for root; else `$XDG_RUNTIME_DIR/joule` (when
/// absolute). Without either, none can be formed. The counterpart of `StateDirectory`.
public struct RuntimeDirectory: Sendable, Hashable, CustomStringConvertible {
    public let path: String

    public init(path: String) {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    public static func resolve(environment: [String: String], isRoot: Bool) -> RuntimeDirectory? {
        if let dir = environment["JOULE_RUNTIME_DIR"], !dir.isEmpty { return RuntimeDirectory(path: dir) }
        if isRoot { return RuntimeDirectory(path: "/run/joule") }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return RuntimeDirectory(path: runtime + "/joule")
        }
        return nil
    }

    /// The directory for the user running this process.
    public static func current() -> RuntimeDirectory? {
        resolve(environment: CurrentProcess.environment(), isRoot: CurrentProcess.isRoot)
    }

    /// The message to print when `current()` is nil.
    public static let missingMessage = "no runtime directory: set JOULE_RUNTIME_DIR or XDG_RUNTIME_DIR"

    /// A file directly inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Creates the directory (and its parents) when missing, private to its owner.
    public func create(mode: UInt32 = 0o700) throws(HardwareError) {
        try FileSystem.makeDirectories(path, mode: mode)
    }

    public var description: String { path }
}
