/// Applies a charge limit to one battery the way its firmware accepts it: thresholds where
/// it has them, in an order that keeps start below end (and the other order once if the
/// kernel says EINVAL, as some embedded controllers check each write against the other
/// threshold), then reads back. A missing start, or a battery with no thresholds at all, is
/// left to `charge_behaviour` emulation, which the daemon drives.
public enum ChargeLimitApplier {
    public static func apply(_ request: ChargeLimitRequest, to files: some ChargeControlFiles) throws(ChargeLimitError) -> ChargeLimitOutcome {
        let state = ChargeControlState.read(files)
        let plan = try self.plan(request, state: state, battery: files.battery)
        var writes: [String] = []
        do throws(ChargeLimitError) {
            try write(plan.targets, to: files, writes: &writes)
        } catch {
            // Only an EINVAL on the first write is worth the other order; anything else (EACCES,
            // EIO, a refusal after a value already changed) stands.
            guard case .writeRefused(_, _, let failure, _) = error, failure.errno == .invalid, writes.isEmpty,
                  plan.targets.count == 2 else { throw error }
            try write(plan.targets.reversed(), to: files, writes: &writes)
        }
        if let behaviour = plan.behaviour {
            do throws(HardwareError) {
                try files.write(.behaviour, behaviour)
            } catch {
                throw .writeRefused(location: files.location(of: .behaviour), value: behaviour, error: error, held: ChargeControlState.read(files))
            }
            writes.append("\(ChargeAttribute.behaviour.rawValue)=\(behaviour)")
        }
        let held = ChargeControlState.read(files)
        var mismatches: [String] = []
        for (attribute, value) in plan.targets {
            let reads = attribute == .start ? held.startThreshold : held.endThreshold
            if reads != value {
                mismatches.append("\(files.location(of: attribute)) reads \(reads.map(String.init) ?? "nothing") after writing \(value)")
            }
        }
        if let behaviour = plan.behaviour, held.behaviour != behaviour {
            mismatches.append("\(files.location(of: .behaviour)) reads \(held.behaviour ?? "nothing") after writing \(behaviour)")
        }
        return ChargeLimitOutcome(
            request: request, source: plan.source, writes: writes, held: held, mismatches: mismatches)
    }

    struct Plan: Equatable {
        /// Threshold writes, in order.
        var targets: [(ChargeAttribute, Int)]
        /// A `charge_behaviour` to write after the thresholds (back to `auto` for "off").
        var behaviour: String?
        var source: ChargeLimitSource

        static func == (a: Plan, b: Plan) -> Bool {
            a.targets.map { "\($0.0)=\($0.1)" } == b.targets.map { "\($0.0)=\($0.1)" } && a.behaviour == b.behaviour && a.source == b.source
        }
    }

    /// What to write, in which order, and who will hold the limit. Values already in place
    /// are not written again.
    static func plan(_ request: ChargeLimitRequest, state: ChargeControlState, battery: String) throws(ChargeLimitError) -> Plan {
        let hasStart = state.present.contains(.start), hasEnd = state.present.contains(.end)
        // Leaving an emulated hold must not leave the battery inhibited.
        let release = state.behaviour.map { $0 != "auto" && state.behaviours.contains("auto") } ?? false
        guard hasEnd else {
            if request.isOff { return Plan(targets: [], behaviour: release ? "auto" : nil, source: .none) }
            guard state.canInhibit else {
                throw .unsupported(battery: battery, what: "has no charge_control_end_threshold and no charge_behaviour inhibit-charge: no charge limit is possible")
            }
            return Plan(targets: [], behaviour: nil, source: .emulated)
        }
        var start: Int?
        if request.isOff {
            // Off: charge whenever below 100. 0 is the thresholds' "no start" on every driver
            // that has one.
            start = hasStart ? 0 : nil
        } else if let wanted = request.start {
            if hasStart { start = wanted } else if !state.canInhibit {
                throw .unsupported(battery: battery, what: "has no charge_control_start_threshold and no charge_behaviour inhibit-charge to emulate one: give only an end (\(request.end))")
            }
        }
        var targets: [(ChargeAttribute, Int)] = []
        if state.endThreshold != request.end { targets.append((.end, request.end)) }
        if let start, state.startThreshold != start { targets.append((.start, start)) }
        // A new end at or below the current start goes after the start moves down; otherwise
        // the end first, so a new start is never above the old end.
        if targets.count == 2, let current = state.startThreshold, request.end <= current { targets.reverse() }
        let source: ChargeLimitSource = request.isOff ? .none : (request.start != nil && !hasStart ? .emulated : .firmware)
        return Plan(targets: targets, behaviour: request.isOff && release ? "auto" : nil, source: source)
    }

    private static func write(_ targets: [(ChargeAttribute, Int)], to files: some ChargeControlFiles, writes: inout [String]) throws(ChargeLimitError) {
        for (attribute, value) in targets {
            do throws(HardwareError) {
                try files.write(attribute, String(value))
            } catch {
                throw .writeRefused(location: files.location(of: attribute), value: String(value), error: error, held: ChargeControlState.read(files))
            }
            writes.append("\(attribute.rawValue)=\(value)")
        }
    }
}
