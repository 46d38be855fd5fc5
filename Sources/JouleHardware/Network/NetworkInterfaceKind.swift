/// What kind of link a network interface is, as far as cost goes: read from
/// `ROOT/sys/class/net/IF/uevent` (`DEVTYPE`) and `ROOT/sys/class/net/IF/type` (the ARPHRD
/// number). Modems show up as `DEVTYPE=wwan` (cdc_mbim, qmi_wwan), as PPP (type 512) or as raw
/// IP (type 519, rmnet and qmi_wwan in raw-ip mode); all of those are cellular-like.
public enum NetworkInterfaceKind: Sendable, Hashable, CustomStringConvertible {
    case wwan
    case ppp
    case rawIP
    case wlan
    case loopback
    /// Anything else (Ethernet, bridges, tunnels, dummies): `DEVTYPE` when there is one.
    case other(devtype: String?)

    /// ARPHRD_PPP and ARPHRD_RAWIP from linux/if_arp.h; ARPHRD_LOOPBACK.
    static let pppType = 512
    static let rawIPType = 519
    static let loopbackType = 772

    /// Pure: from the uevent text and the `type` number (nil when unreadable). `DEVTYPE=wwan`
    /// wins over the type, as a wwan netdev in Ethernet mode still is a modem.
    public static func classify(uevent: String, type: Int?) -> NetworkInterfaceKind {
        var devtype: String?
        for line in uevent.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
            devtype = String(line.dropFirst("DEVTYPE=".count)).trimmingWhitespace
        }
        if devtype == "wwan" { return .wwan }
        switch type {
        case pppType: return .ppp
        case rawIPType: return .rawIP
        case loopbackType: return .loopback
        default: break
        }
        if devtype == "wlan" { return .wlan }
        return .other(devtype: devtype)
    }

    /// Reads the interface's uevent and type under `root`. A missing uevent reads as empty (a
    /// plain interface); a missing interface directory throws.
    public static func read(interface: String, root: FileRoot = .live) throws(HardwareError) -> NetworkInterfaceKind {
        let directory = root.path("/sys/class/net/\(interface)")
        guard Syscalls.kind(of: directory) == .directory else {
            throw HardwareError(operation: "stat", path: directory, errno: .noEntry)
        }
        let uevent = (try? Syscalls.readText(directory + "/uevent")) ?? ""
        let type = (try? Syscalls.readText(directory + "/type")).flatMap { Int($0.trimmingWhitespace) }
        return classify(uevent: uevent, type: type)
    }

    /// Whether traffic over it probably costs money: a modem of any kind.
    public var isCellularLike: Bool {
        switch self {
        case .wwan, .ppp, .rawIP: true
        case .wlan, .loopback, .other: false
        }
    }

    public var description: String {
        switch self {
        case .wwan: "wwan"
        case .ppp: "ppp"
        case .rawIP: "rawip"
        case .wlan: "wlan"
        case .loopback: "loopback"
        case .other(let devtype): devtype ?? "other"
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
