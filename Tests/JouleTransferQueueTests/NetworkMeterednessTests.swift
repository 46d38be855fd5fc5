import JouleHardware
import JouleTransferQueue
import JouleTesting
import Testing

/// NetworkMeteredness on fixture roots with a wwan and a wlan device: override first, then
/// NetworkManager when it knows, then the default-route interface's kind.
struct NetworkMeterednessTests {
    static func machine(defaultVia routes: [(String, Int)]) throws -> ProcTree { try NetworkTree.machine(defaultVia: routes) }

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
