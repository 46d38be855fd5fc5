/// A user the daemon acts for (a transfer's owner): its groups decide what it may read and
/// write, checked from mode bits because the daemon itself runs as root and access(2) would
/// answer for root.
public struct UserAccount: Sendable, Hashable {
    public var uid: UInt32
    public var name: String
    /// The primary group.
    public var gid: UInt32
    public var home: String
    /// Every group, the primary one included.
    public var groups: [UInt32]
    /// The login shell (passwd), for a hook's SHELL.
    public var shell: String

    public init(uid: UInt32, name: String, gid: UInt32, home: String, groups: [UInt32], shell: String = "/bin/sh") {
        self.shell = shell
        self.uid = uid
        self.name = name
        self.gid = gid
        self.home = home
        self.groups = groups
    }

    /// The passwd entry of `uid`; nil when there is none.
    public static func lookup(uid: UInt32) -> UserAccount? {
        guard let entry = UserAccountSyscalls.lookup(uid) else { return nil }
        return UserAccount(uid: uid, name: entry.name, gid: entry.gid, home: entry.home, groups: entry.groups, shell: entry.shell)
    }

    /// The account a D-Bus caller's uid acts as: its passwd entry, or, without one, the uid
    /// alone (its own gid, no other groups), so nothing is granted through a guessed name.
    public static func acting(for uid: UInt32) -> UserAccount {
        lookup(uid: uid) ?? UserAccount(uid: uid, name: "\(uid)", gid: uid, home: "/", groups: [uid])
    }

    public enum Access: Sendable {
        case read, write, search

        var bit: UInt32 {
            switch self {
            case .read: 4
            case .write: 2
            case .search: 1
            }
        }
    }

    /// Whether this user may `access` `path` by its mode bits (root may do anything); false
    /// when it cannot be stat'ed. ACLs are not consulted.
    public func may(_ access: Access, _ path: String) -> Bool {
        if uid == 0 { return UserAccountSyscalls.modeAndOwner(path) != nil }
        guard let info = UserAccountSyscalls.modeAndOwner(path) else { return false }
        let shift: UInt32 = info.uid == uid ? 6 : (groups.contains(info.gid) ? 3 : 0)
        return (info.mode >> shift) & access.bit != 0
    }
}
