/// Which figure stands for the host's power: RAPL when its counters can be read, else the
/// batteries while they discharge, else nothing measures and callers fall back to a model
/// (an Energy Impact score from CPU time and wakeups). The kind is `joule top`'s `"source"`.
public struct PowerSource: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case rapl, battery, model
    }

    public var kind: Kind
    /// The RAPL zones to use, when the kind is `rapl`.
    public var rapl: RAPLHostDomains?
    /// The battery figure, when the kind is `battery`.
    public var battery: BatteryDischargePower?
    /// Why each better source was passed over, e.g. `rapl: /sys/class/powercap/intel-rapl:0/
    /// energy_uj: root-only ...`; empty when RAPL was chosen.
    public var passedOver: [String]

    public init(kind: Kind, rapl: RAPLHostDomains? = nil, battery: BatteryDischargePower? = nil, passedOver: [String] = []) {
        self.kind = kind
        self.rapl = rapl
        self.battery = battery
        self.passedOver = passedOver
    }

    /// Where the figure comes from, in detail: `rapl:psys`, `rapl:package`, `battery`, `model`.
    public var origin: String {
        switch kind {
        case .rapl: rapl?.source ?? "rapl"
        case .battery: "battery"
        case .model: "model"
        }
    }

    /// RAPL measures the whole package or platform on AC and on battery alike, so it wins; a
    /// discharging battery measures the whole machine but only off AC; otherwise a model.
    public static func choose(rapl reading: RAPLReading, supplies: PowerSupplies) -> PowerSource {
        if let domains = RAPLHostDomains.select(from: reading) {
            return PowerSource(kind: .rapl, rapl: domains)
        }
        var passedOver = ["rapl: " + RAPLHostDomains.unavailableReason(reading)]
        if let battery = BatteryDischargePower(supplies) {
            return PowerSource(kind: .battery, battery: battery, passedOver: passedOver)
        }
        passedOver.append("battery: " + batteryReason(supplies))
        return PowerSource(kind: .model, passedOver: passedOver)
    }

    static func batteryReason(_ supplies: PowerSupplies) -> String {
        let system = supplies.batteries.filter { !$0.isUPS }
        if system.isEmpty { return "no system battery" }
        if supplies.lineOnline { return "on line power" }
        if !system.contains(where: { $0.state == .discharging }) { return "not discharging" }
        return "no discharge rate reported"
    }
}
