/// The `.part` file of a resumable download: positioned writes, fsync and truncation on one
/// descriptor, then a durable rename into place. Bytes count as kept only once `sync()` has
/// returned; the caller records that offset (durableBytes) and, after a crash, `truncate`s the
/// file back to it, since anything past it may be torn. Not Sendable: one task owns it.
public final class PartFile {
    public let path: String
    private var fd: Int32?

    /// Opens (creating, never truncating) `path` for reading and writing.
    public init(path: String) throws(HardwareError) {
        self.path = path
        self.fd = try Syscalls.openForUpdate(path)
    }

    deinit { if let fd { Syscalls.close(fd) } }

    private func descriptor() throws(HardwareError) -> Int32 {
        guard let fd else { throw HardwareError(operation: "write", path: path, detail: "part file already closed") }
        return fd
    }

    /// The file's current size in bytes.
    public func size() throws(HardwareError) -> Int64 {
        try Syscalls.fileSize(try descriptor(), path: path)
    }

    /// pwrite(2) of all of `bytes` at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(HardwareError) {
        try Syscalls.pwriteAll(try descriptor(), bytes, at: offset, path: path)
    }

    /// fsync(2): everything written so far survives a crash once this returns.
    public func sync() throws(HardwareError) {
        try Syscalls.sync(try descriptor(), path: path)
    }

    /// fsync(2) of this file, callable from another thread while the owner writes on; the
    /// owner must wait for it before `close()`.
    public func syncer() throws(HardwareError) -> Syncer {
        Syncer(fd: try descriptor(), path: path)
    }

    public struct Syncer: Sendable {
        fileprivate let fd: Int32
        fileprivate let path: String

        public func sync() throws(HardwareError) {
            try Syscalls.sync(fd, path: path)
        }
    }

    /// ftruncate(2) to `length` bytes.
    public func truncate(to length: Int64) throws(HardwareError) {
        try Syscalls.truncate(try descriptor(), to: length, path: path)
    }

    public func close() {
        if let fd { Syscalls.close(fd) }
        fd = nil
    }

    /// rename(2) of a finished, synced file onto `destination` (same filesystem), then fsync of
    /// its directory: readers see no file or the whole file.
    public static func moveIntoPlace(_ path: String, to destination: String) throws(HardwareError) {
        try Syscalls.renameDurably(path, to: destination)
    }
}
