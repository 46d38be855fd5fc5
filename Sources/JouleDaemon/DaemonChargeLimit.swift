import Foundation
import JouleHardware
import JouleEnergy
import JouleHistory

/// The daemon's side of issue 36's charge limit: a `ChargeLimitKeeper` over the batteries'
/// sysfs files under the daemon's root, fed the engine's power readings, logind's resumes and
/// the bus's calls, each of its lines logged.
actor DaemonChargeLimit {
    private var keeper: ChargeLimitKeeper
    private let files: ChargeLimitKeeper.Files
    private let log: @Sendable (String) -> Void
    /// The history's samples since a time, for optimized charging's routine.
    typealias History = @Sendable (Double) async -> [HistorySample]
    private let history: History?
    /// What optimized charging learnt from the history, read again at each plug-in and hourly.
    private var routine: (sessions: [ChargeSession], ratePerHour: Double?, read: Double)?
    /// When the charge under way began (nil on battery), and the charger as last seen.
    private var pluggedAt: Double?
    private var lineOnline: Bool?
    /// The wall clock and the local zone's offset at a time: injected by tests.
    private let now: @Sendable () -> Double
    private let utcOffset: @Sendable (Double) -> Int

    /// The zone's offset from UTC at `time`, in seconds (the routine is in local time).
    static func localOffset(_ time: Double) -> Int { TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: time)) }

    /// The history read for the routine: the predictor's two weeks and a day.
    static let routineSpan: Double = Double(UnplugPredictor.windowDays + 1) * 86_400

    init(
        limit: ChargeLimitRequest?, optimizedCharging: Bool = false, root: FileRoot, history: History? = nil,
        now: @escaping @Sendable () -> Double = WallClock.seconds, utcOffset: @escaping @Sendable (Double) -> Int = DaemonChargeLimit.localOffset,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.now = now
        self.utcOffset = utcOffset
        let files: ChargeLimitKeeper.Files = { name in SysfsChargeControlFiles(root: root, battery: name) }
        self.files = files
        self.log = log
        self.history = history
        keeper = ChargeLimitKeeper(limit: Self.limit(limit, optimizedCharging), files: files, optimizedCharging: optimizedCharging)
    }

    /// Optimized charging without a limit holds at 80 %, as macOS does.
    static func limit(_ limit: ChargeLimitRequest?, _ optimizedCharging: Bool) -> ChargeLimitRequest? {
        limit ?? (optimizedCharging ? try? ChargeLimitRequest(start: nil, end: 80) : nil)
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

    /// Every power reading: an unplug ends full-once, drift is applied again, emulation acts,
    /// and optimized charging decides whether to hold.
    func observe(_ supplies: PowerSupplies) async {
        guard keeper.limit != nil else { return }
        write(keeper.observe(fresh(supplies)))
        await optimize(supplies, now: now())
    }

    /// Optimized charging's decision for this reading, from the routine in the history.
    private func optimize(_ supplies: PowerSupplies, now: Double) async {
        guard keeper.optimizedCharging, let limit = keeper.limit else { return }
        let plugged = supplies.lineOnline
        if plugged != lineOnline || routine == nil || now - (routine?.read ?? 0) >= 3600 {
            let samples = await history?(now - Self.routineSpan) ?? []
            let readings = samples.map { (time: $0.timestamp, lineOnline: $0.lineOnline) }
            let charging = samples.map { (time: $0.timestamp, percent: $0.percentage, charging: $0.chargeState == .charging) }
            routine = (ChargeSession.sessions(readings), ChargeRate.percentPerHour(charging, from: Double(limit.end)), now)
            if plugged, lineOnline == nil { pluggedAt = ChargeSession.current(readings) }
        }
        if !plugged { pluggedAt = nil } else if pluggedAt == nil { pluggedAt = now }
        lineOnline = plugged
        let offset = utcOffset(now)
        let decision = OptimizedChargingDecision.decide(
            routine?.sessions ?? [], now: now, utcOffset: offset, end: limit.end, percent: supplies.composite?.percentage,
            ratePerHour: routine?.ratePerHour, pluggedAt: pluggedAt)
        let held = keeper.holding
        write(keeper.optimize(decision, batteries: Self.batteries(supplies), lineOnline: plugged, utcOffset: offset))
        if keeper.holding != held { settle(supplies) }
    }

    /// `SetChargeLimit` or a reloaded config. Returns the refusals (empty: every battery took it).
    @discardableResult
    func set(_ limit: ChargeLimitRequest?, optimizedCharging: Bool? = nil, supplies: PowerSupplies?) -> [String] {
        let optimized = optimizedCharging ?? keeper.optimizedCharging
        write(keeper.set(Self.limit(limit, optimized), optimizedCharging: optimized, batteries: Self.batteries(supplies)))
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
        if keeper.optimizedCharging {
            entries.append(("optimizedCharging", .bool(true)))
            if let decision = keeper.optimized {
                let offset = utcOffset(now())
                entries.append(("optimized", .string(decision.description(end: limit.end, utcOffset: offset))))
                if case .hold(let until, _) = decision { entries.append(("holdUntil", .double(until))) }
            }
        }
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
