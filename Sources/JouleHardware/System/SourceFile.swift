/// The file an upload sends: opened once, sized with fstat(2) and read with pread(2) in pieces,
/// so a large file is never held in memory. Sendable because the descriptor never changes and
/// pread carries its own offset; the descriptor closes with the last reference.
public final class SourceFile: Sendable {
    public let path: String
    private let fd: Int32

    /// Opens `path` read-only with `owner`'s rights (nil: this process's own), never following
    /// a final symlink, so no one uploads a file they could not read themselves; fails (naming
    /// the path and errno) when it is missing, unreadable, a symlink or not a regular file.
    public init(path: String, owner: UserAccount? = nil) throws(HardwareError) {
        self.path = path
        let fd = try Syscalls.openAt(Syscalls.currentDirectory, path, .read, as: owner, path: path)
        do {
            _ = try Syscalls.regularFileSize(fd, path: path)
        } catch {
            Syscalls.close(fd)
            throw error
        }
        self.fd = fd
    }

    deinit { Syscalls.close(fd) }

    /// The file's current size; re-read during a send to notice a file that changes under it.
    public func size() throws(HardwareError) -> Int64 {
        try Syscalls.regularFileSize(fd, path: path)
    }

    /// pread(2) into `buffer` at `offset`; 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(HardwareError) -> Int {
        try Syscalls.pread(fd, into: buffer, at: Int(offset), path: path)
    }
}
