#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The C library's user database and ownership calls: getpwuid_r, getgrouplist, stat and
/// lstat, for acting on behalf of a D-Bus caller who is not the daemon's user.
enum UserAccountSyscalls {
    /// The passwd entry and every group of `uid`; nil when the uid has no entry.
    static func lookup(_ uid: UInt32) -> (name: String, gid: UInt32, home: String, shell: String, groups: [UInt32])? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let namePointer = entry.pw_name else {
            return nil
        }
        let name = String(cString: namePointer)
        let home = entry.pw_dir.map { String(cString: $0) } ?? "/"
        let shell = entry.pw_shell.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
        let gid = entry.pw_gid
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(namePointer, gid, &groups, &count) < 0 {
            // count now holds the size needed.
            groups = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(namePointer, gid, &groups, &count) < 0 { count = 0 }
        }
        return (name, gid, home, shell, Array(groups.prefix(Int(max(0, count)))))
    }

    /// Mode bits and owner of `path`, following symlinks; nil when it cannot be stat'ed.
    static func modeAndOwner(_ path: String) -> (mode: UInt32, uid: UInt32, gid: UInt32)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode), info.st_uid, info.st_gid)
    }

    /// Mode bits, owner and group of `path` itself (lstat(2), a final symlink not followed);
    /// nil when it cannot be stat'ed.
    static func entryModeAndOwner(_ path: String) -> (mode: UInt32, uid: UInt32, gid: UInt32)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt32(info.st_mode), info.st_uid, info.st_gid)
    }
}
