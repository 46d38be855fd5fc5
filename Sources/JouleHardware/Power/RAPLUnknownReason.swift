/// Why a RAPL value is unknown. A zone whose counter cannot be read still appears, with this
/// reason, so nobody mistakes a missing figure for 0 µJ.
public enum RAPLUnknownReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// EACCES or EPERM: `energy_uj` has been mode 0400 since the CVE-2020-8694 fix (Platypus,
    /// 2020), because its fine-grained changes leak secrets across users.
    case rootOnly(path: String)
    /// The read failed otherwise (ENOENT for a vanished zone, EIO, ENODATA...).
    case readFailed(path: String, errno: Errno)
    /// The file held something that is not an unsigned decimal counter.
    case unparseable(path: String, text: String)

    /// The file, relative to the root (`/sys/class/powercap/intel-rapl:0/energy_uj`).
    public var path: String {
        switch self {
        case .rootOnly(let path), .readFailed(let path, _), .unparseable(let path, _): path
        }
    }

    public var isRootOnly: Bool {
        if case .rootOnly = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .rootOnly(let path):
            "\(path): root-only (mode 0400 since the CVE-2020-8694 fix); run as root to measure power"
        case .readFailed(let path, let errno):
            "\(path): read failed: \(errno)"
        case .unparseable(let path, let text):
            "\(path): parse error: not a counter: \"\(text.prefix(32))\""
        }
    }
}
