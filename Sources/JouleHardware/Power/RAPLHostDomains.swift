/// Which RAPL zones together measure what the host used, and how to name that figure.
///
/// Zones overlap: `core`, `uncore` and `dram` under a package are parts of it, and `psys`
/// covers the packages and more (SoC, PCH, memory, as the platform reports it). So the host is
/// `psys` alone when it can be read, else the top-level packages plus any top-level `dram`
/// (servers where memory is a sibling of the package, not inside it). Children are never added.
public struct RAPLHostDomains: Sendable, Hashable {
    public enum Basis: String, Sendable, Hashable {
        case psys = "rapl:psys"
        case package = "rapl:package"
    }

    public var basis: Basis
    /// The zones to add up, e.g. `["intel-rapl:1"]`, or `["intel-rapl:0", "intel-rapl:1"]` on a
    /// two-socket machine.
    public var zoneIDs: [String]

    public init(basis: Basis, zoneIDs: [String]) {
        self.basis = basis
        self.zoneIDs = zoneIDs
    }

    /// Where the figure comes from: `rapl:psys` or `rapl:package`.
    public var source: String { basis.rawValue }

    /// nil when RAPL cannot measure the host: no zones, or a needed counter is unknown (a sum
    /// missing one package would look right and be wrong).
    public static func select(from reading: RAPLReading) -> RAPLHostDomains? {
        let top = reading.topLevel
        if let psys = top.first(where: { $0.kind == .psys && $0.energyMicrojoules != nil }) {
            return RAPLHostDomains(basis: .psys, zoneIDs: [psys.id])
        }
        let packages = top.filter { $0.kind == .package }
        let dram = top.filter { $0.kind == .dram }
        let zones = packages + dram
        guard !packages.isEmpty, zones.allSatisfy({ $0.energyMicrojoules != nil }) else { return nil }
        return RAPLHostDomains(basis: .package, zoneIDs: zones.map(\.id))
    }

    /// Why `select` found nothing, for the user: root-only counters first, since that is the
    /// one cause a user can fix.
    public static func unavailableReason(_ reading: RAPLReading) -> String {
        if reading.isEmpty { return "no RAPL zones under /sys/class/powercap" }
        let needed = reading.topLevel.filter { $0.kind == .package || $0.kind == .psys || $0.kind == .dram }
        if needed.isEmpty { return "no package or psys zone" }
        let reasons = needed.compactMap(\.energyUnknown)
        if let rootOnly = reasons.first(where: \.isRootOnly) { return rootOnly.description }
        return reasons.first?.description ?? "no readable package or psys zone"
    }
}
