/// Every RAPL zone at one instant, parents before their children (`intel-rapl:0`,
/// `intel-rapl:0:0`, ..., `intel-rapl:1`). Empty on a machine without RAPL (ARM boards, VMs).
public struct RAPLReading: Sendable, Hashable {
    public var zones: [RAPLZone]

    public init(zones: [RAPLZone] = []) {
        self.zones = zones
    }

    public var isEmpty: Bool { zones.isEmpty }

    public func zone(_ id: String) -> RAPLZone? { zones.first { $0.id == id } }

    /// Zones with no parent: packages, psys, and on some servers dram.
    public var topLevel: [RAPLZone] { zones.filter(\.isTopLevel) }

    public func children(of id: String) -> [RAPLZone] { zones.filter { $0.parentID == id } }

    /// True when some counter is unknown only because this process is not root: the one case
    /// a user can fix, so callers say so instead of showing nothing.
    public var isRootOnly: Bool { zones.contains { $0.energyUnknown?.isRootOnly == true } }
}
