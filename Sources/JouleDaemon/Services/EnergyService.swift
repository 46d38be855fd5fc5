import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads

/// The `org.joule.Energy1` object: the engines' state as D-Bus properties (read from a
/// snapshot under a lock, so a property read never waits for the engines), its methods,
/// and the change signals. The contract is `data/org.joule.Energy1.xml`.
package final class EnergyService: Sendable {

    /// What the methods do, supplied by the daemon.
    package struct Handlers: Sendable {
        /// `SetLowPowerMode(mode)` from `sender`, already parsed.
        package var setLowPowerMode: @Sendable (_ mode: LowPowerOverride, _ sender: String) async throws(BusMethodError) -> Void
        /// The `GetStatus` JSON text.
        package var status: @Sendable () async -> String
        /// The `GetMetrics` text: what `/metrics` serves, for `joule export`.
        package var metrics: @Sendable () async throws(BusMethodError) -> String
        /// `GetHistory(since, until)` for `sender`: the `joule history --json` text. nil: the
        /// daemon keeps no history (no state directory), and the method says so.
        package var history: (@Sendable (_ since: Double, _ until: Double, _ sender: String) async throws(BusMethodError) -> String)?
        /// `SetChargeLimit(start, end)` from `sender`, already checked (nil: off).
        package var setChargeLimit: @Sendable (_ limit: ChargeLimitRequest, _ sender: String) async throws(BusMethodError) -> Void
        /// `ChargeFullOnce()` from `sender`.
        package var chargeFullOnce: @Sendable (_ sender: String) async throws(BusMethodError) -> Void

        package init(
            setLowPowerMode: @escaping @Sendable (LowPowerOverride, String) async throws(BusMethodError) -> Void,
            status: @escaping @Sendable () async -> String,
            metrics: @escaping @Sendable () async throws(BusMethodError) -> String = { () throws(BusMethodError) in
                throw .failed("this daemon exports no metrics")
            },
            history: (@Sendable (Double, Double, String) async throws(BusMethodError) -> String)? = nil,
            setChargeLimit: @escaping @Sendable (ChargeLimitRequest, String) async throws(BusMethodError) -> Void = { _, _ throws(BusMethodError) in
                throw .failed("this daemon keeps no charge limit")
            },
            chargeFullOnce: @escaping @Sendable (String) async throws(BusMethodError) -> Void = { _ throws(BusMethodError) in
                throw .failed("this daemon keeps no charge limit")
            }
        ) {
            self.setChargeLimit = setChargeLimit
            self.chargeFullOnce = chargeFullOnce
            self.setLowPowerMode = setLowPowerMode
            self.status = status
            self.metrics = metrics
            self.history = history
        }
    }

    /// Shared with the property getters, which run on the bus thread.
    private final class Snapshot: Sendable {
        let value: Locked<EnergyBusState>
        init(_ state: EnergyBusState) { value = Locked(state) }
    }

    private let signals: BusSignalEmitter
    private let snapshot: Snapshot

    private init(bus: BusConnection, state: EnergyBusState, log: @escaping @Sendable (String) -> Void) {
        signals = BusSignalEmitter(bus: bus, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName, log: log)
        snapshot = Snapshot(state)
    }

    /// Exports the object on `bus` with `initial` state. The name is requested separately,
    /// after the export, so the first caller finds the object. `log` hears signals that could
    /// not be sent.
    package static func export(
        on bus: BusConnection, initial: EnergyBusState, handlers: Handlers, log: @escaping @Sendable (String) -> Void
    ) async throws(BusError) -> EnergyService {
        let service = EnergyService(bus: bus, state: initial, log: log)
        try await bus.export(service.interface(handlers), at: EnergyBus.objectPath)
        return service
    }

    package var current: EnergyBusState { snapshot.value.withLock { $0 } }

    /// Publishes `new`: PropertiesChanged for the properties that differ (one signal).
    package func update(_ new: EnergyBusState) async {
        let old = snapshot.value.withLock { state -> EnergyBusState in
            defer { state = new }
            return state
        }
        let changed = zip(old.properties, new.properties).filter { $0.0.1 != $0.1.1 }.map(\.1.0)
        guard !changed.isEmpty else { return }
        await signals.propertiesChanged(changed)
    }

    package func powerStateDidChange(lowPowerMode: Bool, reason: String) async {
        await signals.signal("PowerStateDidChange", [.bool(lowPowerMode), .string(reason)])
    }

    package func thermalStateDidChange(state: ThermalState, previous: ThermalState, cause: String?) async {
        await signals.signal("ThermalStateDidChange", [.string(state.description), .string(previous.description), .string(cause ?? "")])
    }

    /// A sleep that drained faster than `SleepRecord.flagPercentPerHour`: for the session
    /// agent to tell the user, with what woke the machine.
    package func sleepFlagged(_ record: SleepRecord) async {
        await signals.signal("SleepFlagged", [Self.sleep(record)])
    }

    /// A CPU-monitor violation, for the session agent to tell the user about a kill.
    package func cpuMonitorViolation(_ report: ResourceReport, path: String?) async {
        await signals.signal("CPUMonitorViolation", [Self.violation(report, path: path)])
    }

    /// A violation as `a{sv}`: process, pid, action (kill, throttle, report), actionTaken,
    /// exception (`EXC_RESOURCE CPU`), message, report (the incident id), path (when written).
    package static func violation(_ report: ResourceReport, path: String?) -> BusValue {
        var entries: [(String, BusValue)] = [
            ("process", .string(report.processName)), ("pid", .uint32(UInt32(bitPattern: report.pid))),
            ("action", .string(report.action)), ("actionTaken", .string(report.actionTaken)),
            ("exception", .string("\(report.exceptionType) \(report.exceptionSubtype)")), ("message", .string(report.exceptionMessage)),
            ("report", .string(report.incidentIdentifier)),
        ]
        if let path { entries.append(("path", .string(path))) }
        return .variantDictionary(entries)
    }

    /// A sleep as `a{sv}`: start, end (Unix seconds), mode, drainPercentPerHour, drainW,
    /// energyBeforeWh, energyAfterWh, wakeReason, summary; an unknown value is left out.
    package static func sleep(_ record: SleepRecord) -> BusValue {
        var entries: [(String, BusValue)] = [("start", .double(record.start)), ("end", .double(record.end))]
        if let mode = record.mode { entries.append(("mode", .string(mode))) }
        if let rate = record.drainPercentPerHour { entries.append(("drainPercentPerHour", .double(rate))) }
        if let watts = record.drainW { entries.append(("drainW", .double(watts))) }
        if let before = record.energyBeforeWh { entries.append(("energyBeforeWh", .double(before))) }
        if let after = record.energyAfterWh { entries.append(("energyAfterWh", .double(after))) }
        if let reason = record.wakeReason { entries.append(("wakeReason", .string(reason))) }
        entries.append(("summary", .string(record.summary)))
        return .variantDictionary(entries)
    }

    /// `SetChargeLimit`'s arguments as a request: start 0 is no start threshold, (0, 100) is
    /// off; anything else out of range or out of order is InvalidArgs naming the rule.
    package static func chargeLimit(start: UInt32, end: UInt32) throws(BusMethodError) -> ChargeLimitRequest {
        if start == 0, end == 100 { return .off }
        do throws(ChargeLimitError) {
            return try ChargeLimitRequest(start: start == 0 ? nil : Int(start), end: Int(end))
        } catch {
            throw .invalidArgs("\(error) (start 0 is no start threshold; 0, 100 is off)")
        }
    }

    private func interface(_ handlers: Handlers) -> BusInterface {
        let snapshot = self.snapshot
        func property(_ index: Int, _ signature: String) -> BusInterface.Property {
            let name = EnergyBusState().properties[index].0
            return .init(name, signature) { snapshot.value.withLock { $0.properties[index].1 } }
        }
        return BusInterface(
            name: EnergyBus.interfaceName,
            properties: [
                property(0, "b"), property(1, "s"), property(2, "s"), property(3, "b"), property(4, "d"), property(5, "s"),
                property(6, "a{sv}"),
            ],
            methods: [
                .init("SetLowPowerMode", in: "s", inNames: ["mode"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 1, let word = call.arguments[0].stringValue,
                          let mode = LowPowerOverride(rawValue: word)
                    else {
                        throw .invalidArgs("mode must be \"on\", \"off\" or \"auto\", not \(call.arguments.first?.description ?? "nothing")")
                    }
                    try await handlers.setLowPowerMode(mode, call.sender)
                    return []
                },
                .init("SetChargeLimit", in: "uu", inNames: ["start", "end"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 2, let start = call.arguments[0].uint32Value, let end = call.arguments[1].uint32Value else {
                        throw .invalidArgs("SetChargeLimit takes (u start, u end), not \(call.arguments.map(\.description))")
                    }
                    try await handlers.setChargeLimit(try Self.chargeLimit(start: start, end: end), call.sender)
                    return []
                },
                .init("ChargeFullOnce") { call throws(BusMethodError) in
                    try await handlers.chargeFullOnce(call.sender)
                    return []
                },
                .init("GetStatus", out: "s", outNames: ["status"]) { _ in [.string(await handlers.status())] },
                .init("GetMetrics", out: "s", outNames: ["metrics"]) { _ throws(BusMethodError) in
                    [.string(try await handlers.metrics())]
                },
                .init("GetHistory", in: "dd", inNames: ["since", "until"], out: "s", outNames: ["history"]) { call throws(BusMethodError) in
                    guard call.arguments.count == 2, let since = call.arguments[0].doubleValue,
                          let until = call.arguments[1].doubleValue, since.isFinite, until.isFinite, since <= until
                    else {
                        throw .invalidArgs("since and until must be Unix seconds with since <= until, not \(call.arguments.map(\.description))")
                    }
                    guard let history = handlers.history else { throw .failed("joule daemon keeps no history (it has no state directory)") }
                    return [.string(try await history(since, until, call.sender))]
                },
            ],
            signals: [
                .init("PowerStateDidChange", "bs", names: ["lowPowerMode", "reason"]),
                .init("ThermalStateDidChange", "sss", names: ["state", "previous", "cause"]),
                .init("SleepFlagged", "a{sv}", names: ["sleep"]),
                .init("CPUMonitorViolation", "a{sv}", names: ["violation"]),
            ])
    }
}
