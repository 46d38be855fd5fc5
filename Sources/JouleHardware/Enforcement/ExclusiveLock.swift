/// An exclusive lock on a file, held until `release()` or the end of the process (however it
/// ends): keeps two `joule enforce` runs on one journal from starting at the same moment.
public struct ExclusiveLock: Sendable {
    private let fd: Int32
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Takes the lock on `path`, creating the file; nil when another process holds it.
    public static func acquire(_ path: String) throws(HardwareError) -> ExclusiveLock? {
        guard let fd = try Syscalls.tryLockFile(path) else { return nil }
        return ExclusiveLock(fd: fd, path: path)
    }

    /// Releases the lock. Call at most once.
    public func release() { Syscalls.close(fd) }
}
