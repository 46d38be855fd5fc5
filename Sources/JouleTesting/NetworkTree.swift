/// A laptop's network devices and its routing table, for the metered-network rule.
public enum NetworkTree {
    public static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    public static func route(_ iface: String, metric: Int) -> String {
        "\(iface)\t00000000\t0101A8C0\t0003\t0\t0\t\(metric)\t00000000\t0\t0\t0\n"
    }

    /// A laptop with a modem (wwan0, DEVTYPE=wwan), Wi-Fi (wlan0), a PPP link and Ethernet.
    public static func machine(defaultVia routes: [(String, Int)]) throws -> ProcTree {
        let tree = try ProcTree()
        try tree.write("sys/class/net/wwan0/uevent", "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=5\n")
        try tree.write("sys/class/net/wwan0/type", "1\n")
        try tree.write("sys/class/net/wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n")
        try tree.write("sys/class/net/wlan0/type", "1\n")
        try tree.write("sys/class/net/ppp0/uevent", "INTERFACE=ppp0\nIFINDEX=7\n")
        try tree.write("sys/class/net/ppp0/type", "512\n")
        try tree.write("sys/class/net/rmnet0/uevent", "INTERFACE=rmnet0\nIFINDEX=8\n")
        try tree.write("sys/class/net/rmnet0/type", "519\n")
        try tree.write("sys/class/net/eth0/uevent", "INTERFACE=eth0\nIFINDEX=2\n")
        try tree.write("sys/class/net/eth0/type", "1\n")
        try tree.write("proc/net/route", header + routes.map { route($0.0, metric: $0.1) }.joined())
        return tree
    }
}
