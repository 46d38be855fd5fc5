#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims

/// Files the daemon writes or reads for someone: a directory opened once without following a
/// final symlink, then names opened, renamed and removed under that descriptor
/// (openat/renameat/unlinkat with O_NOFOLLOW), so swapping the directory's path for a symlink
/// after it was opened moves nothing outside it. With an account (a root daemon acting for
/// another user), each call runs with that user's file-system rights through `joule_fs_as`.
extension Syscalls {
    /// AT_FDCWD: `openAt` of a path, relative to the working directory.
    static let currentDirectory = AT_FDCWD

    /// The account whose rights a call must take: only when this process is root and acts
    /// for another user. A non-root daemon (session mode) opens as itself.
    private static func switching(to account: UserAccount?) -> UserAccount? {
        guard let account, geteuid() == 0, account.uid != 0 else { return nil }
        return account
    }

    /// One openat/renameat/unlinkat, as `account` when `switching` says so; -1 with errno set.
    private static func call(
        _ operation: Int32, dirfd: Int32, _ name: String, _ name2: String? = nil, flags: Int32 = 0, mode: mode_t = 0,
        as account: UserAccount?
    ) -> Int32 {
        guard let account = switching(to: account) else {
            return name.withCString { first in
                switch operation {
                case Int32(JOULE_FS_OPENAT): return openat(dirfd, first, flags, mode)
                case Int32(JOULE_FS_RENAMEAT): return (name2 ?? "").withCString { renameat(dirfd, first, dirfd, $0) }
                default: return unlinkat(dirfd, first, 0)
                }
            }
        }
        let groups = account.groups.map { gid_t($0) }
        return groups.withUnsafeBufferPointer { groupList in
            name.withCString { first in
                withOptionalCString(name2) { second in
                    joule_fs_as(uid_t(account.uid), gid_t(account.gid), groupList.baseAddress, Int32(groupList.count),
                                operation, dirfd, first, second, flags, mode)
                }
            }
        }
    }

    /// The error of a failed call, saying so plainly when a symlink was refused.
    private static func failure(_ operation: String, _ path: String) -> HardwareError {
        let code = Errno.current
        // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR.
        if code == Errno(ELOOP) || (code == Errno(ENOTDIR) && entryKind(of: path) == .symlink) {
            return HardwareError(operation: operation, path: path, errno: code, detail: "a symbolic link, not followed")
        }
        return HardwareError(operation: operation, path: path, errno: code)
    }

    /// open(2) of a directory with O_DIRECTORY|O_NOFOLLOW, as `account`.
    static func openDirectoryNoFollow(_ path: String, as account: UserAccount?) throws(HardwareError) -> Int32 {
        let fd = call(Int32(JOULE_FS_OPENAT), dirfd: AT_FDCWD, path, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, as: account)
        guard fd >= 0 else { throw failure("open", path) }
        return fd
    }

    /// How `openAt` opens a name.
    enum OpenIntent: Sendable {
        case read
        /// Read-write, created with `mode` when missing, never truncated.
        case update(mode: UInt32)
        /// Write-only, created with `mode`; fails when the name exists (O_EXCL).
        case createNew(mode: UInt32)

        var flags: Int32 {
            switch self {
            case .read: O_RDONLY
            case .update: O_RDWR | O_CREAT
            case .createNew: O_WRONLY | O_CREAT | O_EXCL
            }
        }

        var mode: mode_t {
            switch self {
            case .read: 0
            case .update(let mode), .createNew(let mode): mode_t(mode)
            }
        }
    }

    /// openat(2) of `name` under `dirfd` (AT_FDCWD: a path) with O_NOFOLLOW|O_CLOEXEC, as
    /// `account`; `path` names it in errors.
    static func openAt(
        _ dirfd: Int32, _ name: String, _ intent: OpenIntent, as account: UserAccount?, path: String
    ) throws(HardwareError) -> Int32 {
        let fd = call(
            Int32(JOULE_FS_OPENAT), dirfd: dirfd, name, flags: intent.flags | O_NOFOLLOW | O_CLOEXEC, mode: intent.mode,
            as: account)
        guard fd >= 0 else { throw failure("open", path) }
        return fd
    }

    /// renameat(2) of `from` onto `to`, both under `dirfd`, as `account`, then fsync(2) of the
    /// directory so the new name survives a crash. A symlink at `to` is replaced, never followed.
    static func renameAt(_ dirfd: Int32, _ from: String, to: String, as account: UserAccount?, path: String) throws(HardwareError) {
        guard call(Int32(JOULE_FS_RENAMEAT), dirfd: dirfd, from, to, as: account) == 0 else {
            throw failure("rename", "\(path)/\(from) -> \(to)")
        }
        _ = fsync(dirfd)
    }

    /// unlinkat(2) of `name` under `dirfd`, as `account`; a missing name is not an error.
    static func unlinkAt(_ dirfd: Int32, _ name: String, as account: UserAccount?, path: String) throws(HardwareError) {
        guard call(Int32(JOULE_FS_UNLINKAT), dirfd: dirfd, name, as: account) == 0 || errno == ENOENT else {
            throw failure("unlink", path)
        }
    }

    /// fstatat(2) of `name` under `dirfd` without following it; nil when it does not exist.
    static func entryKind(at dirfd: Int32, _ name: String) -> EntryKind? {
        var info = stat()
        guard fstatat(dirfd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }
}
