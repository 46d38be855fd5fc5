/// Whether a file that root is about to act on (a config, an enforce policy, a hook script)
/// can have been changed by someone other than root and the user it acts for, as sudo checks
/// sudoers: the file and every directory above it, both as named and as resolved through
/// symlinks, must be owned by root or that user, and writable by no one else. A directory
/// others may write is allowed only with the sticky bit (as /tmp), and group write only for
/// group root. A root daemon that read such a file would run another user's words as root.
public enum FileTrust {
    /// Why `path` cannot be trusted, naming the file or directory at fault; nil when it can.
    /// `owner` is the user besides root whose files count as trusted (a hook's owner).
    public static func problem(with path: String, owner: UInt32? = nil) -> String? {
        let absolute = path.hasPrefix("/") ? path : ((try? Syscalls.realPath(".")) ?? "") + "/" + path
        var chains = [absolute]
        if let resolved = try? Syscalls.realPath(absolute), resolved != absolute { chains.append(resolved) }
        for chain in chains {
            let components = chain.split(separator: "/").map(String.init)
            var prefix = ""
            for (index, component) in ([""] + components).enumerated() {
                if index > 0 { prefix += "/" + component }
                let current = prefix.isEmpty ? "/" : prefix
                // Missing: the read that follows fails and names it (root can stat anything else).
                guard let info = UserAccountSyscalls.entryModeAndOwner(current) else { return nil }
                if let fault = fault(current, info, isFile: index == components.count, owner: owner) { return fault }
            }
        }
        return nil
    }

    private static func fault(
        _ path: String, _ info: (mode: UInt32, uid: UInt32, gid: UInt32), isFile: Bool, owner: UInt32?
    ) -> String? {
        let kind = info.mode & 0o170000
        // A symlink's own bits mean nothing; what it names is checked on the resolved chain.
        if kind == 0o120000 { return nil }
        let mode = String(info.mode & 0o7777, radix: 8)
        guard info.uid == 0 || info.uid == owner else {
            let who = owner.map { $0 == 0 ? "root" : "root or uid \($0)" } ?? "root"
            return "\(path) is owned by uid \(info.uid), not \(who)"
        }
        let sticky = kind == 0o040000 && info.mode & 0o1000 != 0 && !isFile
        if info.mode & 0o002 != 0 && !sticky { return "\(path) is writable by every user (mode \(mode))" }
        if info.mode & 0o020 != 0 && info.gid != 0 && !sticky {
            return "\(path) is writable by group \(info.gid) (mode \(mode))"
        }
        return nil
    }
}
