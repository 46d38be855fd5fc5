/// One powercap zone of the `intel-rapl` control type (Intel, and AMD Zen through the same
/// driver), read at one instant. Values are nil when unknown, with the reason beside them.
public struct RAPLZone: Sendable, Hashable {
    /// What the zone measures, from its `name`. Children are parts of their parent: `core`,
    /// `uncore` and `dram` under a package are inside that package's figure.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `package-N` (and `package-N-die-M` on multi-die parts).
        case package
        /// The CPU cores (PP0).
        case core
        /// The integrated GPU and the rest of the package outside the cores (PP1).
        case uncore
        /// Memory: a child of the package on clients, sometimes a top-level zone on servers.
        case dram
        /// The whole platform as the SoC sees it (Skylake and later), a superset of the package.
        case psys
        /// A name Joule does not know, or no readable name.
        case other

        public init(name: String?) {
            guard let name else { self = .other; return }
            if name.hasPrefix("package") { self = .package; return }
            self = Kind(rawValue: name) ?? .other
        }
    }

    /// The sysfs name: `intel-rapl:0`, `intel-rapl:0:1`.
    public var id: String
    /// Where the zone was read, relative to the root: `/sys/class/powercap/intel-rapl:0:1`.
    public var path: String
    /// The enclosing zone's id (`intel-rapl:0` for `intel-rapl:0:1`), nil for a top-level zone.
    public var parentID: String?
    /// The zone's `name`: `package-0`, `core`, `uncore`, `dram`, `psys`.
    public var name: String?
    public var kind: Kind
    /// `energy_uj`: a counter since boot (or since the driver loaded) that wraps at the range.
    public var energyMicrojoules: UInt64?
    /// `max_energy_range_uj`: where `energy_uj` wraps to 0.
    public var maxRangeMicrojoules: UInt64?
    public var nameUnknown: RAPLUnknownReason?
    public var energyUnknown: RAPLUnknownReason?
    public var maxRangeUnknown: RAPLUnknownReason?

    public init(
        id: String, path: String, parentID: String?, name: String?,
        energyMicrojoules: UInt64? = nil, maxRangeMicrojoules: UInt64? = nil
    ) {
        self.id = id
        self.path = path
        self.parentID = parentID
        self.name = name
        kind = Kind(name: name)
        self.energyMicrojoules = energyMicrojoules
        self.maxRangeMicrojoules = maxRangeMicrojoules
    }

    public var isTopLevel: Bool { parentID == nil }
}
