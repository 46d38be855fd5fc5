/// One kernel control file under a root (`ROOT/sys/...`), read and written in place as sysfs
/// requires: `open(O_WRONLY|O_TRUNC)` and `write(2)`, never a rename, which would replace the
/// attribute on a fixture and fail on sysfs. The kernel answers a refused value with the
/// write's errno (EINVAL, EBUSY, EACCES), which comes back as a `HardwareError`.
public struct ControlFile: Sendable, Hashable, CustomStringConvertible {
    public let root: FileRoot
    /// The kernel's path, e.g. `/sys/firmware/acpi/platform_profile`.
    public let path: String

    public init(root: FileRoot, path: String) {
        self.root = root
        self.path = path
    }

    /// Where the file is on this machine: the path inside the root.
    public var location: String { root.path(path) }

    /// Whether the file exists as a regular file (sysfs attributes are regular files).
    public var exists: Bool { Syscalls.kind(of: location) == .regular }

    /// The file's text as written, without decoding.
    public func readRaw() throws(HardwareError) -> String {
        try Syscalls.readText(location)
    }

    /// The file's current value: the trimmed text, or the bracketed choice of a selection
    /// list such as `default [powersave] performance` (see `KnobText.current`).
    public func read() throws(HardwareError) -> String {
        KnobText.current(try readRaw())
    }

    /// Writes `value` followed by a newline, in place.
    public func write(_ value: String) throws(HardwareError) {
        try Syscalls.writeControlFile(location, value + "\n")
    }

    public var description: String { location }
}
