/// Plain file operations for the policy layer and the CLI (state files, policy files, pid
/// files, reports), each a thin throwing wrapper over the gateway that names the call and path.
public enum FileSystem {
    /// What a path is, following symlinks.
    public enum Kind: Sendable { case regular, directory, other }

    /// A whole file's bytes; `limit` bounds what an endless or hostile file can make us buffer.
    public static func readBytes(_ path: String, limit: Int = 1 << 20) throws(HardwareError) -> [UInt8] {
        try Syscalls.readFile(path, limit: limit)
    }

    /// A file's text, decoded as UTF-8 with invalid bytes replaced. Without
    /// `followingSymlinks`, a final symlink is refused (O_NOFOLLOW: ELOOP).
    public static func readText(_ path: String, followingSymlinks: Bool = true) throws(HardwareError) -> String {
        try Syscalls.readText(path, followingSymlinks: followingSymlinks)
    }

    /// Names in a directory, without `.` and `..`, sorted.
    public static func listDirectory(_ path: String) throws(HardwareError) -> [String] {
        try Syscalls.listDirectory(path)
    }

    /// nil when the path does not exist or cannot be stat'ed.
    public static func kind(of path: String) -> Kind? {
        switch Syscalls.kind(of: path) {
        case .regular: .regular
        case .directory: .directory
        case .other: .other
        case nil: nil
        }
    }

    /// mkdir -p with `mode` for each created level.
    public static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(HardwareError) {
        try Syscalls.makeDirectories(path, mode: mode)
    }

    /// unlink(2); a missing file is not an error.
    public static func removeFile(_ path: String) throws(HardwareError) {
        try Syscalls.removeFile(path)
    }

    /// The owner UID of `path`, nil when it cannot be stat'ed.
    public static func owner(of path: String) -> UInt32? { Syscalls.fileOwner(path) }

    /// The errno stat(2) fails with for `path` (ENOENT, EACCES, ENOTDIR…), nil when it succeeds.
    public static func statFailure(_ path: String) -> Errno? { Syscalls.statFailure(path) }

    /// Space on the file system holding a path.
    public struct Space: Sendable, Hashable {
        /// Bytes an unprivileged writer may still use (statvfs f_bavail).
        public var free: UInt64
        /// The file system's size in bytes.
        public var total: UInt64

        public init(free: UInt64, total: UInt64) {
            self.free = free
            self.total = total
        }
    }

    /// Why this user cannot create a file in directory `path` (EACCES, EROFS for proc, sysfs and
    /// cgroup file systems), or nil when it can.
    public static func createFailure(inDirectory path: String) -> Errno? { Syscalls.createFailure(inDirectory: path) }

    /// statvfs(2) of `path` (any existing file or directory on the file system).
    public static func freeSpace(_ path: String) throws(HardwareError) -> Space {
        let space = try Syscalls.fileSystemSpace(path)
        return Space(free: space.available, total: space.total)
    }
}
