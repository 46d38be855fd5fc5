/// A directory the daemon writes in for someone, opened once (O_DIRECTORY|O_NOFOLLOW) with
/// that user's rights; files in it are then opened, renamed and removed by name under this
/// descriptor, as the same user, never following a symlink. Swapping the directory's path for
/// a symlink after it was opened changes nothing: every later call still lands in the directory
/// that was opened. A transfer can therefore never write where its owner could not.
///
/// `owner` nil (or this process's own user, or a non-root process) means this process's own
/// rights: reports, journals and the textfile export the daemon writes for itself.
public final class OwnedDirectory: Sendable {
    public let path: String
    public let owner: UserAccount?
    private let fd: Int32

    public init(path: String, owner: UserAccount?) throws(HardwareError) {
        self.path = path
        self.owner = owner
        fd = try Syscalls.openDirectoryNoFollow(path.isEmpty ? "." : path, as: owner)
    }

    deinit { Syscalls.close(fd) }

    /// The directory and the last component of `path` ("." for a bare name).
    public static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    func fullPath(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    /// Opens `name` for reading and writing, creating it with `mode` when missing and never
    /// truncating; a symlink there is refused.
    func openForUpdate(_ name: String, mode: UInt32 = 0o644) throws(HardwareError) -> Int32 {
        try Syscalls.openAt(fd, name, .update(mode: mode), as: owner, path: fullPath(name))
    }

    /// Creates `name`, which must not exist (O_EXCL), write-only with `mode`.
    func createNew(_ name: String, mode: UInt32) throws(HardwareError) -> Int32 {
        try Syscalls.openAt(fd, name, .createNew(mode: mode), as: owner, path: fullPath(name))
    }

    /// Renames `from` onto `to` within this directory, durably; a symlink at `to` is refused
    /// rather than replaced, so a planted link is reported instead of silently overwritten.
    public func rename(_ from: String, to: String) throws(HardwareError) {
        if Syscalls.entryKind(at: fd, to) == .symlink {
            throw HardwareError(operation: "rename", path: fullPath(to), detail: "a symbolic link is in the way; not replaced")
        }
        try Syscalls.renameAt(fd, from, to: to, as: owner, path: path)
    }

    /// Removes `name`; a missing one is not an error.
    public func remove(_ name: String) throws(HardwareError) {
        try Syscalls.unlinkAt(fd, name, as: owner, path: fullPath(name))
    }

    /// What `name` is, without following it; nil when missing.
    public func kind(of name: String) -> FileSystem.EntryKind? {
        switch Syscalls.entryKind(at: fd, name) {
        case .regular: .regular
        case .directory: .directory
        case .symlink: .symlink
        case .other: .other
        case nil: nil
        }
    }

    /// Replaces `name` with `bytes` so readers see the old file or the new, never a torn one:
    /// a temporary name no one can guess, created with O_EXCL, written and fsynced, then
    /// renamed over `name` within this directory.
    public func replace(_ name: String, with bytes: [UInt8], mode: UInt32) throws(HardwareError) {
        var generator = SystemRandomNumberGenerator()
        let temp = ".\(name).tmp-\(String(generator.next() as UInt64, radix: 36))"
        let file = try createNew(temp, mode: mode)
        do throws(HardwareError) {
            defer { Syscalls.close(file) }
            try Syscalls.writeAll(file, bytes, path: fullPath(temp))
            try Syscalls.sync(file, path: fullPath(temp))
        } catch {
            try? remove(temp)
            throw error
        }
        do {
            try rename(temp, to: name)
        } catch {
            try? remove(temp)
            throw error
        }
    }
}

extension FileSystem {
    /// What a directory entry itself is, not following a final symlink.
    public enum EntryKind: Sendable { case regular, directory, symlink, other }

    /// lstat(2) of `path`; nil when it does not exist.
    public static func entryKind(of path: String) -> EntryKind? {
        switch Syscalls.entryKind(of: path) {
        case .regular: .regular
        case .directory: .directory
        case .symlink: .symlink
        case .other: .other
        case nil: nil
        }
    }
}
