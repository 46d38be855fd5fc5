/// The `.part` file of a resumable download: positioned writes, fsync and truncation on one
/// descriptor, then a durable rename into place. Bytes count as kept only once `sync()` has
/// returned; the caller records that offset (durableBytes) and, after a crash, `truncate`s the
/// file back to it, since anything past it may be torn. Not Sendable: one task owns it.
///
/// The destination's directory is opened once, as the transfer's owner, and the `.part` file
/// is opened, renamed and removed under it with the owner's rights, never following a
/// symlink (see `OwnedDirectory`): the root daemon writes nothing its owner could not.
public final class PartFile {
    /// `destination + ".part"`.
    public let path: String
    public let destination: String
    private let directory: OwnedDirectory
    private let partName: String
    private let destinationName: String
    private var fd: Int32?

    /// Opens (creating, never truncating) `destination + ".part"` for reading and writing, as
    /// `owner` (nil: this process's own user).
    public init(destination: String, owner: UserAccount?) throws(HardwareError) {
        self.destination = destination
        path = destination + ".part"
        let (directoryPath, name) = OwnedDirectory.split(destination)
        destinationName = name
        partName = name + ".part"
        directory = try OwnedDirectory(path: directoryPath, owner: owner)
        fd = try directory.openForUpdate(partName)
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

    /// fsync(2) (and the digest) of this file, callable from another thread while the owner
    /// writes on; the owner must wait for it before `close()`.
    public func syncer() throws(HardwareError) -> Syncer {
        Syncer(fd: try descriptor(), path: path)
    }

    public struct Syncer: Sendable {
        fileprivate let fd: Int32
        fileprivate let path: String

        public func sync() throws(HardwareError) {
            try Syscalls.sync(fd, path: path)
        }

        /// The hex SHA-256 of the file's bytes, read through this descriptor (never by path,
        /// which could by now name another file).
        public func sha256() throws(HardwareError) -> String {
            try SHA256Hasher.hexDigest(ofDescriptor: fd, path: path)
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

    /// Renames the finished, synced file onto the destination within the directory opened at
    /// the start, as the owner, then fsyncs that directory: readers see no file or the whole file.
    public func placer() -> Placer { Placer(directory: directory, from: partName, to: destinationName) }

    public struct Placer: Sendable {
        fileprivate let directory: OwnedDirectory
        fileprivate let from: String
        fileprivate let to: String

        public func moveIntoPlace() throws(HardwareError) { try directory.rename(from, to: to) }
    }

    /// Removes the `.part` file, as the owner.
    public func remove() throws(HardwareError) { try directory.remove(partName) }

    /// Removes `destination + ".part"` as `owner` without opening it; a missing file or
    /// directory is not an error.
    public static func remove(destination: String, owner: UserAccount?) throws(HardwareError) {
        let (directoryPath, name) = OwnedDirectory.split(destination)
        let directory: OwnedDirectory
        do {
            directory = try OwnedDirectory(path: directoryPath, owner: owner)
        } catch {
            if error.errno == .noEntry { return }
            throw error
        }
        try directory.remove(name + ".part")
    }
}
