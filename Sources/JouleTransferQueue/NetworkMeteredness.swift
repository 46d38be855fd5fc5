import JouleHardware

/// Whether the network a transfer would use is metered, decided in this order:
/// 1. the config's per-interface override (`transfers.meteredInterfaces`) for the default-route
///    interface: NetworkManager guesses phone hotspots as unmetered, the top complaint of
///    updater users, and only the user knows;
/// 2. NetworkManager's `Metered` when NM is on the bus and knows (YES/GUESS_YES metered,
///    NO/GUESS_NO not; UNKNOWN, e.g. a link NM does not manage, falls through);
/// 3. the default-route interface's kind: a modem (wwan, PPP, raw IP) is metered.
/// Without a default route nothing is metered: there is no network to pay for, and the
/// transfer's own attempt finds out it cannot connect.
public enum NetworkMeteredness {
    /// What decided.
    public enum Source: String, Sendable, Hashable {
        case override
        case networkManager
        case interfaceKind
        case noDefaultRoute
    }

    public struct Decision: Sendable, Hashable {
        public var metered: Bool
        /// The default-route interface, nil without one.
        public var interface: String?
        public var source: Source

        public init(metered: Bool, interface: String?, source: Source) {
            self.metered = metered
            self.interface = interface
            self.source = source
        }
    }

    /// Pure: `networkManager` nil when NM is not on the bus; `kind` nil when the interface
    /// could not be read (then it is taken as not cellular).
    public static func decide(
        overrides: [String: Bool], networkManager: NetworkManagerMetered?, defaultRoute: DefaultRoute?,
        kind: NetworkInterfaceKind?
    ) -> Decision {
        let interface = defaultRoute?.interface
        if let interface, let metered = overrides[interface] {
            return Decision(metered: metered, interface: interface, source: .override)
        }
        if let networkManager, networkManager != .unknown {
            return Decision(metered: networkManager.isMetered, interface: interface, source: .networkManager)
        }
        guard let interface else { return Decision(metered: false, interface: nil, source: .noDefaultRoute) }
        return Decision(metered: kind?.isCellularLike ?? false, interface: interface, source: .interfaceKind)
    }

    /// Reads `ROOT/proc/net/route` and, when needed, the interface's kind under `root`, then
    /// decides. An unreadable route table counts as no default route.
    public static func read(
        root: FileRoot = .live, overrides: [String: Bool] = [:], networkManager: NetworkManagerMetered?
    ) -> Decision {
        let route = (try? DefaultRoute.read(root: root)) ?? nil
        var kind: NetworkInterfaceKind?
        if let route, overrides[route.interface] == nil, networkManager == nil || networkManager == .unknown {
            kind = try? NetworkInterfaceKind.read(interface: route.interface, root: root)
        }
        return decide(overrides: overrides, networkManager: networkManager, defaultRoute: route, kind: kind)
    }
}
