import JouleHardware
import JouleEnergy

/// The daemon's side of issue 36's charge limit: a `ChargeLimitKeeper` over the batteries'
/// sysfs files under the daemon's root, fed the engine's power readings, logind's resumes and
/// the bus's calls, each of its lines logged.
actor DaemonChargeLimit {
    private var keeper: ChargeLimitKeeper
    private let files: ChargeLimitKeeper.Files
    private let log: @Sendable (String) -> Void

    init(limit: ChargeLimitRequest?, root: FileRoot, log: @escaping @Sendable (String) -> Void) {
        let files: ChargeLimitKeeper.Files = { name in SysfsChargeControlFiles(root: root, battery: name) }
        self.files = files
        self.log = log
        keeper = ChargeLimitKeeper(limit: limit, files: files)
    }

    var limit: ChargeLimitRequest? { keeper.limit }

    /// The system batteries' names (no UPS).
    static func batteries(_ supplies: PowerSupplies?) -> [String] {
        (supplies?.batteries ?? []).filter { !$0.isUPS }.map(\.name)
    }

    /// `supplies` with each battery's charge controls read again now: the engine re-reads
    /// thresholds only when it enumerates again, and the daemon's own writes must not look
    /// like drift.
    func fresh(_ supplies: PowerSupplies) -> PowerSupplies {
        var supplies = supplies
        for index in supplies.batteries.indices {
            let state = ChargeControlState.read(files(supplies.batteries[index].name))
            guard !state.present.isEmpty else { continue }
            supplies.batteries[index].chargeLimit = ChargeLimitReading(state: state)
        }
        return supplies
    }

    /// At start and after a resume (`reason`); an emulated limit acts at once on the levels
    /// read, not at the next poll.
    func apply(_ supplies: PowerSupplies?, reason: String) {
        write(keeper.apply(to: Self.batteries(supplies), reason: reason))
        settle(supplies)
    }

    /// The emulation's first decision after the thresholds were written.
    private func settle(_ supplies: PowerSupplies?) {
        guard let supplies, keeper.outcomes.values.contains(where: { $0.source == .emulated }) else { return }
        write(keeper.observe(fresh(supplies)))
    }

    /// Every power reading: an unplug ends full-once, drift is applied again, emulation acts.
    func observe(_ supplies: PowerSupplies) {
        guard keeper.limit != nil else { return }
        write(keeper.observe(fresh(supplies)))
    }

    /// `SetChargeLimit` or a reloaded config. Returns the refusals (empty: every battery took it).
    @discardableResult
    func set(_ limit: ChargeLimitRequest?, supplies: PowerSupplies?) -> [String] {
        write(keeper.set(limit, batteries: Self.batteries(supplies)))
        settle(supplies)
        return refusals
    }

    /// `ChargeFullOnce`; false when no limit is set (nothing to lift).
    func chargeFullOnce(_ supplies: PowerSupplies?) -> Bool {
        guard let limit = keeper.limit, !limit.isOff else { return false }
        write(keeper.chargeFullOnce(batteries: Self.batteries(supplies), lineOnline: supplies?.lineOnline ?? false))
        return true
    }

    /// On the way out: only an emulated inhibit is released; the firmware keeps the limit.
    func release(_ supplies: PowerSupplies?) {
        guard let supplies else { return }
        write(keeper.release(fresh(supplies)))
    }

    var refusals: [String] { keeper.failures.keys.sorted().compactMap { keeper.failures[$0] } }

    /// `ChargeLimit`'s `a{sv}`: empty without a limit.
    var busValue: BusValue {
        guard let limit = keeper.limit else { return .variantDictionary([]) }
        var entries: [(String, BusValue)] = []
        if let start = limit.start { entries.append(("start", .uint32(UInt32(start)))) }
        entries.append(("end", .uint32(UInt32(limit.end))))
        entries.append(("source", .string(source.rawValue)))
        entries.append(("holds", .bool(holds)))
        entries.append(("fullOnce", .bool(keeper.fullOnce)))
        let refusals = refusals
        if !refusals.isEmpty { entries.append(("error", .string(refusals.joined(separator: "\n")))) }
        return .variantDictionary(entries)
    }

    /// Emulated when any battery is held through `charge_behaviour`, firmware when a
    /// threshold holds it, none otherwise (off, full-once, or nothing applied).
    var source: ChargeLimitSource {
        let sources = keeper.outcomes.values.map(\.source)
        if sources.contains(.emulated) { return .emulated }
        return sources.contains(.firmware) ? .firmware : .none
    }

    /// Every battery took the limit and reads it back.
    var holds: Bool {
        keeper.failures.isEmpty && !keeper.outcomes.isEmpty && keeper.outcomes.values.allSatisfy(\.holds)
    }

    /// The status JSON's batteries: charge controls as they read now, and `emulated` for
    /// a battery whose limit the daemon holds through `charge_behaviour`.
    func annotate(_ supplies: PowerSupplies) -> PowerSupplies {
        var supplies = fresh(supplies)
        for index in supplies.batteries.indices {
            let name = supplies.batteries[index].name
            if keeper.outcomes[name]?.source == .emulated, let effective = keeper.effective, !effective.isOff {
                supplies.batteries[index].chargeLimit.source = .emulated
            }
        }
        return supplies
    }

    private func write(_ lines: [String]) {
        for line in lines { log(line) }
    }
}
