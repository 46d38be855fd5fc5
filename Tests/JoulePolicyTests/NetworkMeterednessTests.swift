import JouleHardware
import JoulePolicy
import JouleTesting
import Testing

/// NetworkMeteredness on fixture roots with a wwan and a wlan device: override first, then
/// NetworkManager when it knows, then the default-route interface's kind.
struct NetworkMeterednessTests {
    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"

    static func route(_ iface: String, metric: Int) -> String {
        "\(iface)\t00000000\t0101A8C0\t0003\t0\t0\t\(metric)\t00000000\t0\t0\t0\n"
    }

    /// A laptop with a modem (wwan0, DEVTYPE=wwan), Wi-Fi (wlan0), a PPP link and Ethernet.
    static func machine(defaultVia routes: [(String, Int)]) throws -> ProcTree {
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

    @Test func theDefaultRouteOverWiFiIsUnmetered() throws {
        let tree = try Self.machine(defaultVia: [("wwan0", 700), ("wlan0", 600)])
        let decision = NetworkMeteredness.read(root: FileRoot(tree.path), networkManager: nil)
        #expect(decision == .init(metered: false, interface: "wlan0", source: .interfaceKind))
    }

    @Test func theDefaultRouteOverTheModemIsMetered() throws {
        for modem in ["wwan0", "ppp0", "rmnet0"] {
            let tree = try Self.machine(defaultVia: [("wlan0", 600), (modem, 100)])
            let decision = NetworkMeteredness.read(root: FileRoot(tree.path), networkManager: nil)
            #expect(decision == .init(metered: true, interface: modem, source: .interfaceKind), "\(modem)")
        }
        let tree = try Self.machine(defaultVia: [("eth0", 100)])
        #expect(NetworkMeteredness.read(root: FileRoot(tree.path), networkManager: nil).metered == false)
    }

    @Test func theOverrideForTheInterfaceComesFirst() throws {
        // A phone hotspot over Wi-Fi that NetworkManager guesses unmetered.
        let wifi = try Self.machine(defaultVia: [("wlan0", 600)])
        let decision = NetworkMeteredness.read(root: FileRoot(wifi.path), overrides: ["wlan0": true], networkManager: .guessNo)
        #expect(decision == .init(metered: true, interface: "wlan0", source: .override))
        // A modem on a flat-rate plan.
        let modem = try Self.machine(defaultVia: [("wwan0", 600)])
        #expect(
            NetworkMeteredness.read(root: FileRoot(modem.path), overrides: ["wwan0": false], networkManager: .yes)
                == .init(metered: false, interface: "wwan0", source: .override))
        // An override for another interface changes nothing.
        #expect(NetworkMeteredness.read(root: FileRoot(modem.path), overrides: ["wlan0": false], networkManager: nil).metered)
    }

    @Test func networkManagerDecidesWhenItKnows() throws {
        let modem = try Self.machine(defaultVia: [("wwan0", 600)])
        let root = FileRoot(modem.path)
        #expect(NetworkMeteredness.read(root: root, networkManager: .no) == .init(metered: false, interface: "wwan0", source: .networkManager))
        #expect(NetworkMeteredness.read(root: root, networkManager: .guessNo).metered == false)
        let wifi = try Self.machine(defaultVia: [("wlan0", 600)])
        #expect(NetworkMeteredness.read(root: FileRoot(wifi.path), networkManager: .yes).metered)
        #expect(NetworkMeteredness.read(root: FileRoot(wifi.path), networkManager: .guessYes).metered)
        // UNKNOWN falls through to the interface's kind.
        #expect(NetworkMeteredness.read(root: root, networkManager: .unknown) == .init(metered: true, interface: "wwan0", source: .interfaceKind))
    }

    @Test func noDefaultRouteIsNotMetered() throws {
        let tree = try Self.machine(defaultVia: [])
        #expect(NetworkMeteredness.read(root: FileRoot(tree.path), networkManager: nil) == .init(metered: false, interface: nil, source: .noDefaultRoute))
        // No route table at all reads the same.
        let bare = try ProcTree()
        #expect(NetworkMeteredness.read(root: FileRoot(bare.path), networkManager: nil).source == .noDefaultRoute)
        // NetworkManager's word still counts without a route.
        #expect(NetworkMeteredness.read(root: FileRoot(bare.path), networkManager: .yes) == .init(metered: true, interface: nil, source: .networkManager))
    }

    @Test func anUnreadableInterfaceIsNotCellular() {
        let decision = NetworkMeteredness.decide(
            overrides: [:], networkManager: nil, defaultRoute: DefaultRoute(interface: "gone0", metric: 0), kind: nil)
        #expect(decision == .init(metered: false, interface: "gone0", source: .interfaceKind))
    }
}
