/// Everything the power_supply class says at one instant.
public struct PowerSupplies: Sendable, Hashable {
    /// System batteries (and UPSes) that are present, sorted by name.
    public var batteries: [Battery]
    /// Device-scope batteries (mice, keyboards, headsets), sorted by name.
    public var peripherals: [Battery]
    /// Mains, USB and UPS outputs, sorted by name.
    public var lineSources: [LineSource]
    /// nil when no system battery is present.
    public var composite: CompositeBattery?

    public init(batteries: [Battery] = [], peripherals: [Battery] = [], lineSources: [LineSource] = [], composite: CompositeBattery? = nil) {
        self.batteries = batteries
        self.peripherals = peripherals
        self.lineSources = lineSources
        self.composite = composite
    }

    /// True when a system battery exists, no line source is online, and the composite is
    /// discharging. A peripheral alone never puts the machine on battery.
    public var onBattery: Bool {
        guard !batteries.isEmpty, let composite else { return false }
        guard !lineSources.contains(where: { $0.online == true }) else { return false }
        return composite.state == .discharging
    }

    /// Any line source reports online.
    public var lineOnline: Bool { lineSources.contains { $0.online == true } }
}
