/// A cgroup v2 path as /proc/PID/cgroup writes it: `/` for the root, otherwise `/a/b`, relative
/// to the cgroup mount. Every spelling a user may type (`a/b`, `/a/b/`, `/sys/fs/cgroup/a/b`,
/// `a//b`) becomes the same value.
public struct CgroupPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The components below the root, never empty strings.
    public let components: [String]

    public init(_ text: String) {
        var path = Substring(text)
        for prefix in ["/sys/fs/cgroup/", "/sys/fs/cgroup"] where path.hasPrefix(prefix) {
            if prefix == "/sys/fs/cgroup" && path.count > prefix.count { continue }
            path = path.dropFirst(prefix.count)
            break
        }
        components = path.split(separator: "/").map(String.init)
    }

    public init(components: [String]) { self.components = components.filter { !$0.isEmpty } }

    /// A path a policy may name: not the root, with no `.` or `..` component.
    public init?(validating text: String) {
        self.init(text)
        guard !components.isEmpty, !components.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
    }

    public static let root = CgroupPath(components: [])

    public var isRoot: Bool { components.isEmpty }
    public var description: String { "/" + components.joined(separator: "/") }

    /// The enclosing cgroup; nil for the root.
    public var parent: CgroupPath? { isRoot ? nil : CgroupPath(components: Array(components.dropLast())) }

    public func appending(_ name: String) -> CgroupPath { CgroupPath(components: components + [name]) }

    /// Whether `other` is this cgroup or lies below it.
    public func contains(_ other: CgroupPath) -> Bool {
        other.components.count >= components.count && Array(other.components.prefix(components.count)) == components
    }

    /// The directory of this cgroup under `mount` (e.g. `/sys/fs/cgroup`).
    public func directory(mount: String) -> String {
        isRoot ? mount : mount + "/" + components.joined(separator: "/")
    }

    public static func < (a: CgroupPath, b: CgroupPath) -> Bool { a.description < b.description }
}
