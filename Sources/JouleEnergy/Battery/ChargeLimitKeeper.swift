import JouleHardware

/// The charge limit the daemon owns: applied at start, after every resume, and whenever a
/// battery reads back something else (an embedded controller that reset itself), each
/// difference logged once; held with `charge_behaviour` where the firmware lacks a threshold;
/// lifted once on request until the charger is unplugged. The limit is the user's setting,
/// not a knob: it stays when the daemon stops. Only an emulated `inhibit-charge` is released
/// on the way out, because nothing would lift it again.
///
/// A value the daemon's loop owns; each call returns the lines to log.
public struct ChargeLimitKeeper: Sendable {
    /// A battery's charge-control files by name (sysfs under the daemon's root, or doubles).
    public typealias Files = @Sendable (String) -> any ChargeControlFiles

    /// The limit set (config or `SetChargeLimit`); nil: the daemon leaves charging alone.
    public private(set) var limit: ChargeLimitRequest?
    /// `ChargeFullOnce`: charging to 100 % until the charger is next unplugged.
    public private(set) var fullOnce = false
    /// The last outcome per battery, and the last refusal.
    public private(set) var outcomes: [String: ChargeLimitOutcome] = [:]
    public private(set) var failures: [String: String] = [:]
    private let files: Files
    /// Differences already logged, so a battery that keeps resetting is not logged each poll.
    private var reported: Set<String> = []
    /// Whether a charger has been seen online since full-once began (unplugging ends it).
    private var chargerSeen = false

    /// Optimized charging (`battery.optimizedCharging`): the limit is the level a charge is
    /// held at only while a prediction says the charger stays long enough; otherwise the
    /// battery charges normally, to 100 %.
    public private(set) var optimizedCharging: Bool
    /// Optimized charging holds now (its last decision was `.hold` with the charger plugged in).
    public private(set) var holding = false

    public init(limit: ChargeLimitRequest?, files: @escaping Files, optimizedCharging: Bool = false) {
        self.limit = limit
        self.files = files
        self.optimizedCharging = optimizedCharging
    }

    /// What the batteries should be held to now: nothing, the limit, or off during full-once
    /// (and, with optimized charging, off unless it holds).
    public var effective: ChargeLimitRequest? {
        guard let limit else { return nil }
        if fullOnce || (optimizedCharging && !holding) { return .off }
        return limit
    }

    /// Applies the effective limit to `batteries` (names), for `reason` (`start`, `resume`, …).
    public mutating func apply(to batteries: [String], reason: String) -> [String] {
        guard let target = effective else { return [] }
        var lines: [String] = []
        for name in batteries {
            do throws(ChargeLimitError) {
                let outcome = try ChargeLimitApplier.apply(target, to: files(name))
                outcomes[name] = outcome
                failures[name] = nil
                if !outcome.writes.isEmpty {
                    lines.append("\(name): charge limit \(target) (\(reason)): wrote \(outcome.writes.joined(separator: ", "))")
                }
                for mismatch in outcome.mismatches where reported.insert(mismatch).inserted {
                    lines.append("\(name): charge limit \(target) does not hold: \(mismatch)")
                }
            } catch {
                let text = "\(error)"
                if failures[name] != text { lines.append("\(name): charge limit \(target) (\(reason)): \(text)") }
                failures[name] = text
                outcomes[name] = nil
            }
        }
        return lines
    }

    /// Sets a new limit (nil: leave charging alone from now on) and applies it; ends full-once.
    /// `optimizedCharging` nil keeps the mode; a change of mode forgets the last decision.
    public mutating func set(_ new: ChargeLimitRequest?, optimizedCharging mode: Bool? = nil, batteries: [String]) -> [String] {
        limit = new
        fullOnce = false
        reported = []
        if let mode, mode != optimizedCharging {
            optimizedCharging = mode
            optimized = nil
            said = nil
            holding = false
        }
        return apply(to: batteries, reason: "set")
    }

    /// Optimized charging's last decision (nil: off, or not decided yet).
    public private(set) var optimized: OptimizedChargingDecision?
    /// The decision last logged; forgotten at an unplug so each charge says what it does.
    private var said: OptimizedChargingDecision?

    /// Optimized charging, at each power reading: holds at the limit while `decision` is
    /// `.hold` and the charger is plugged in, otherwise lifts it. Logs when what it does
    /// changes (hold, release, normal and why), not at every reading.
    public mutating func optimize(_ decision: OptimizedChargingDecision?, batteries: [String], lineOnline: Bool, utcOffset: Int) -> [String] {
        guard optimizedCharging, let limit else { return [] }
        optimized = decision
        let hold = lineOnline && !fullOnce && !limit.isOff && decision?.isHold == true
        var lines: [String] = []
        if !lineOnline { said = nil }
        if let decision, lineOnline, !Self.sameKind(said, decision) {
            said = decision
            lines.append("optimized charging: " + decision.description(end: limit.end, utcOffset: utcOffset))
        }
        guard hold != holding else { return lines }
        holding = hold
        return lines + apply(to: batteries, reason: hold ? "optimized charging holds" : "optimized charging releases")
    }

    /// Same decision for the log: a hold whose release time moves with the level is not news.
    private static func sameKind(_ a: OptimizedChargingDecision?, _ b: OptimizedChargingDecision) -> Bool {
        switch (a, b) {
        case (.hold?, .hold), (.release?, .release): true
        case (.normal(let x)?, .normal(let y)): x == y
        default: false
        }
    }

    /// Charges to 100 % once; the limit returns when the charger is next unplugged.
    public mutating func chargeFullOnce(batteries: [String], lineOnline: Bool) -> [String] {
        guard limit != nil else { return [] }
        fullOnce = true
        chargerSeen = lineOnline
        return apply(to: batteries, reason: "full once")
    }

    /// A fresh reading of the supplies: ends full-once at an unplug, re-applies a limit that
    /// no longer reads back, and drives the emulated thresholds.
    public mutating func observe(_ supplies: PowerSupplies) -> [String] {
        let batteries = supplies.batteries.filter { !$0.isUPS }
        var lines: [String] = []
        if fullOnce {
            if supplies.lineOnline { chargerSeen = true } else if chargerSeen {
                fullOnce = false
                lines.append("charger unplugged after a full charge: the charge limit \(limit.map { "\($0)" } ?? "") returns")
                return lines + apply(to: batteries.map(\.name), reason: "unplugged")
            }
        }
        guard let target = effective else { return lines }
        var drifted: [String] = []
        for battery in batteries {
            guard let outcome = outcomes[battery.name] else { continue }
            let reading = battery.chargeLimit
            // Only what the firmware held before can drift; a limit that never held is logged once already.
            if outcome.holds, outcome.source == .firmware || target.isOff {
                let wantEnd = outcome.held.present.contains(.end) ? target.end : nil
                let wantStart = outcome.held.present.contains(.start) ? (target.isOff ? 0 : target.start) : nil
                if (wantEnd != nil && reading.end != wantEnd) || (wantStart != nil && reading.start != wantStart) {
                    let now = (reading.start.map { "\($0)" } ?? "?") + "-" + (reading.end.map { "\($0)" } ?? "?")
                    lines.append("\(battery.name): charge thresholds read \(now), not \(target) (reset by the firmware?): applying again")
                    drifted.append(battery.name)
                    continue
                }
            }
            if outcome.source == .emulated, !target.isOff {
                let start = target.start ?? max(0, target.end - 5)
                if let behaviour = ChargeBehaviourEmulation.behaviour(
                    percent: battery.percentage, start: start, end: target.end, current: reading.behaviour)
                {
                    lines.append(contentsOf: writeBehaviour(behaviour, battery: battery.name, why: "at \(battery.percentage.map { "\($0)" } ?? "?") %"))
                }
            }
        }
        return lines + apply(to: drifted, reason: "read back differed")
    }

    /// On the way out: an emulated hold is released (`auto`), since no one would lift it.
    public mutating func release(_ supplies: PowerSupplies) -> [String] {
        var lines: [String] = []
        for battery in supplies.batteries where outcomes[battery.name]?.source == .emulated && battery.chargeLimit.behaviour == "inhibit-charge" {
            lines.append(contentsOf: writeBehaviour("auto", battery: battery.name, why: "joule is stopping"))
        }
        return lines
    }

    private func writeBehaviour(_ behaviour: String, battery: String, why: String) -> [String] {
        let files = files(battery)
        do throws(HardwareError) {
            try files.write(.behaviour, behaviour)
            return ["\(battery): charge_behaviour \(behaviour) (\(why))"]
        } catch {
            return ["\(battery): cannot write charge_behaviour \(behaviour) (\(why)): \(error)"]
        }
    }
}
