import Foundation
import JouleHardware
import JouleTesting
import Testing

/// DefaultRoute, NetworkInterfaceKind and FileSystem.freeSpace on fixture roots and real paths.
struct NetworkReadingTests {
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\n"

    static func line(_ iface: String, destination: String = "00000000", gateway: String = "0101A8C0", flags: String = "0003",
                     metric: Int, mask: String = "00000000") -> String {
        "\(iface)\t\(destination)\t\(gateway)\t\(flags)\t0\t0\t\(metric)\t\(mask)\t0\t0\t0\n"
    }

    @Test func theLowestMetricDefaultRouteWins() {
        let table = Self.header
            + Self.line("wlan0", metric: 600)
            + Self.line("wlan0", destination: "0001A8C0", gateway: "00000000", flags: "0001", metric: 600, mask: "00FFFFFF")
            + Self.line("wwan0", metric: 700)
            + Self.line("enp0s31f6", metric: 100, mask: "00FFFFFF")  // not a default route: a mask
        #expect(DefaultRoute.parse(table) == DefaultRoute(interface: "wlan0", metric: 600))
        #expect(DefaultRoute.parse(Self.header + Self.line("wwan0", metric: 50) + Self.line("wlan0", metric: 600))?.interface == "wwan0")
    }

    @Test func equalMetricsKeepTheFirstAndDownRoutesDoNotCount() {
        #expect(DefaultRoute.parse(Self.header + Self.line("eth0", metric: 0) + Self.line("eth1", metric: 0))?.interface == "eth0")
        // Flags without RTF_UP.
        #expect(DefaultRoute.parse(Self.header + Self.line("eth0", flags: "0002", metric: 0)) == nil)
    }

    @Test func noDefaultRouteOrGarbageIsNil() {
        #expect(DefaultRoute.parse("") == nil)
        #expect(DefaultRoute.parse(Self.header) == nil)
        #expect(DefaultRoute.parse(Self.header + "wlan0 zz yy\nnonsense\n") == nil)
        #expect(DefaultRoute.parse(Self.header + Self.line("lo", destination: "0000007F", metric: 0, mask: "000000FF")) == nil)
    }

    static let ipv6Table = """
        fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000002 00000000 00000003    wwan0
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000258 00000002 00000000 00000003    wlan0
        00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo

        """

    @Test func theIPv6DefaultRouteSkipsTheUnreachableOne() {
        #expect(DefaultRoute.parseIPv6(Self.ipv6Table) == DefaultRoute(interface: "wlan0", metric: 0x258))
        // Only the kernel's unreachable default: none.
        let unreachable = Self.ipv6Table.split(separator: "\n").filter { $0.hasSuffix(" lo") || $0.hasPrefix("fd") }.joined(separator: "\n")
        #expect(DefaultRoute.parseIPv6(unreachable) == nil)
        #expect(DefaultRoute.parseIPv6("") == nil)
    }

    @Test func anUnreachableIPv4DefaultIsNoRoute() {
        #expect(DefaultRoute.parse(Self.header + Self.line("*", gateway: "00000000", flags: "0201", metric: 0)) == nil)
    }

    @Test func anIPv6OnlyNetworkUsesTheIPv6Table() throws {
        let tree = try ProcTree()
        try tree.write("proc/net/route", Self.header)
        try tree.write("proc/net/ipv6_route", Self.ipv6Table)
        #expect(try DefaultRoute.read(root: FileRoot(tree.path)) == DefaultRoute(interface: "wlan0", metric: 0x258))
        // IPv4's default wins when there is one.
        try tree.write("proc/net/route", Self.header + Self.line("wwan0", metric: 900))
        #expect(try DefaultRoute.read(root: FileRoot(tree.path))?.interface == "wwan0")
    }

    @Test func readsTheFixtureRouteTable() throws {
        let tree = try ProcTree()
        try tree.write("proc/net/route", Self.header + Self.line("wwan0", metric: 700) + Self.line("wlan0", metric: 600))
        #expect(try DefaultRoute.read(root: FileRoot(tree.path)) == DefaultRoute(interface: "wlan0", metric: 600))
        let empty = try ProcTree()
        #expect(throws: HardwareError.self) { try DefaultRoute.read(root: FileRoot(empty.path)) }
    }

    @Test func theLiveRouteTableParses() throws {
        // Whatever this machine has; only that reading it works.
        _ = try DefaultRoute.read()
    }

    @Test func classifiesByDevtypeAndType() {
        #expect(NetworkInterfaceKind.classify(uevent: "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=4\n", type: 1) == .wwan)
        #expect(NetworkInterfaceKind.classify(uevent: "DEVTYPE=wlan\nINTERFACE=wlan0\n", type: 1) == .wlan)
        #expect(NetworkInterfaceKind.classify(uevent: "INTERFACE=ppp0\n", type: 512) == .ppp)
        #expect(NetworkInterfaceKind.classify(uevent: "INTERFACE=rmnet_data0\n", type: 519) == .rawIP)
        #expect(NetworkInterfaceKind.classify(uevent: "INTERFACE=eth0\n", type: 1) == .other(devtype: nil))
        #expect(NetworkInterfaceKind.classify(uevent: "DEVTYPE=bridge\n", type: 1) == .other(devtype: "bridge"))
        #expect(NetworkInterfaceKind.classify(uevent: "", type: 772) == .loopback)
        #expect(NetworkInterfaceKind.wwan.isCellularLike && NetworkInterfaceKind.ppp.isCellularLike && NetworkInterfaceKind.rawIP.isCellularLike)
        #expect(!NetworkInterfaceKind.wlan.isCellularLike && !NetworkInterfaceKind.other(devtype: nil).isCellularLike)
    }

    @Test func readsFixtureInterfaces() throws {
        let tree = try ProcTree()
        try tree.write("sys/class/net/wwan0/uevent", "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=5\n")
        try tree.write("sys/class/net/wwan0/type", "1\n")
        try tree.write("sys/class/net/wlan0/uevent", "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=3\n")
        try tree.write("sys/class/net/wlan0/type", "1\n")
        try tree.write("sys/class/net/ppp0/uevent", "INTERFACE=ppp0\nIFINDEX=6\n")
        try tree.write("sys/class/net/ppp0/type", "512\n")
        let root = FileRoot(tree.path)
        #expect(try NetworkInterfaceKind.read(interface: "wwan0", root: root) == .wwan)
        #expect(try NetworkInterfaceKind.read(interface: "wlan0", root: root) == .wlan)
        #expect(try NetworkInterfaceKind.read(interface: "ppp0", root: root) == .ppp)
        #expect(throws: HardwareError.self) { try NetworkInterfaceKind.read(interface: "eth9", root: root) }
    }

    @Test func theLiveLoopbackIsLoopback() throws {
        #expect(try NetworkInterfaceKind.read(interface: "lo") == .loopback)
    }

    @Test func freeSpaceOfARealFileSystem() throws {
        let space = try FileSystem.freeSpace(FileManager.default.temporaryDirectory.path)
        #expect(space.total > 0)
        #expect(space.free <= space.total)
        #expect(throws: HardwareError.self) { try FileSystem.freeSpace("/nonexistent-\(UUID().uuidString)") }
    }
}
