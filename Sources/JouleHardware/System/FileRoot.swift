/// Where readers find the kernel's files: `/` on a live system, or a fixture tree laid out
/// the same way (`ROOT/sys`, `ROOT/proc`). Every reader takes one, so the same code reads the
/// machine and the fixtures.
public struct FileRoot: Sendable, Hashable, CustomStringConvertible {
    /// The root without trailing slashes, empty for `/`: `prefix + "/proc/stat"` is always right.
    public let prefix: String

    public init(_ path: String) {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        prefix = path
    }

    /// The running system.
    public static let live = FileRoot("/")

    public var isLive: Bool { prefix.isEmpty }

    /// `absolute` (which starts with `/`) inside this root.
    public func path(_ absolute: String) -> String { prefix + absolute }

    /// The root as a directory path: `/` or the tree's directory.
    public var description: String { prefix.isEmpty ? "/" : prefix }
}
