import JouleWire
import JouleHardware
import JouleEnergy

/// The charge limit joule daemon holds: its `ChargeLimit` property (`a{sv}`), decoded.
public struct ChargeLimitSetting: Sendable, Hashable {
    /// The limit set; `off` when it charges to 100 %.
    public var limit: ChargeLimitRequest
    /// `firmware`, `emulated` or `none`.
    public var source: ChargeLimitSource
    /// Every battery reads back what was written.
    public var holds: Bool
    /// `ChargeFullOnce` is charging to 100 % until the charger is unplugged.
    public var fullOnce: Bool
    /// The batteries' refusals, one per line; nil when none refused.
    public var error: String?
    /// `battery.optimizedCharging` is on.
    public var optimizedCharging: Bool
    /// Optimized charging's decision and why, as `holding at 80 % until 06:30, full by 07:30
    /// (unplugged 07:45 ± 5 min on 9 of the last 10 weekdays)`; nil before its first decision.
    public var optimized: String?
    /// While it holds: when it lets the battery charge on (Unix seconds).
    public var holdUntil: Double?

    public init(
        limit: ChargeLimitRequest, source: ChargeLimitSource, holds: Bool, fullOnce: Bool, error: String? = nil,
        optimizedCharging: Bool = false, optimized: String? = nil, holdUntil: Double? = nil
    ) {
        self.limit = limit
        self.source = source
        self.holds = holds
        self.fullOnce = fullOnce
        self.error = error
        self.optimizedCharging = optimizedCharging
        self.optimized = optimized
        self.holdUntil = holdUntil
    }

    /// nil for the empty dictionary (no limit held); throws a description of what is wrong.
    package static func decode(_ value: BusValue) throws(BusError) -> ChargeLimitSetting? {
        func bad(_ detail: String) -> BusError { .unexpected(operation: "ChargeLimit", detail: detail) }
        guard let entries = value.stringKeyedEntries else { throw bad("expected a{sv}, got \(value.signature)") }
        if entries.isEmpty { return nil }
        let fields = Dictionary(entries, uniquingKeysWith: { $1 })
        guard let end = fields["end"]?.uint32Value else { throw bad("end: expected u") }
        let start = fields["start"]?.uint32Value
        guard let source = fields["source"]?.stringValue.flatMap(ChargeLimitSource.init(rawValue:)) else {
            throw bad("source: expected s firmware, emulated or none")
        }
        guard let holds = fields["holds"]?.boolValue, let fullOnce = fields["fullOnce"]?.boolValue else {
            throw bad("holds and fullOnce: expected b")
        }
        let limit: ChargeLimitRequest
        do throws(ChargeLimitError) {
            limit = try ChargeLimitRequest(start: start.map { Int($0) }, end: Int(end))
        } catch {
            throw bad("\(error)")
        }
        if let value = fields["optimizedCharging"], value.boolValue == nil { throw bad("optimizedCharging: expected b") }
        if let value = fields["optimized"], value.stringValue == nil { throw bad("optimized: expected s") }
        if let value = fields["holdUntil"], value.doubleValue?.isFinite != true { throw bad("holdUntil: expected d, Unix seconds") }
        return ChargeLimitSetting(
            limit: limit, source: source, holds: holds, fullOnce: fullOnce, error: fields["error"]?.stringValue,
            optimizedCharging: fields["optimizedCharging"]?.boolValue ?? false, optimized: fields["optimized"]?.stringValue,
            holdUntil: fields["holdUntil"]?.doubleValue)
    }
}

extension DaemonClient {
    /// `SetChargeLimit(start, end)`: no start is 0, off is (0, 100). Refused with
    /// `AccessDenied` when polkit says no; `Failed` naming the battery that refused.
    public func setChargeLimit(_ limit: ChargeLimitRequest) async throws(BusError) {
        _ = try await connection.call(
            destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName,
            member: "SetChargeLimit", arguments: [.uint32(UInt32(limit.start ?? 0)), .uint32(UInt32(limit.end))], timeout: nil)
    }

    /// `ChargeFullOnce()`: charge to 100 % until the charger is next unplugged.
    public func chargeFullOnce() async throws(BusError) {
        _ = try await connection.call(
            destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName,
            member: "ChargeFullOnce", arguments: [], timeout: nil)
    }

    /// The `ChargeLimit` property; nil when the daemon holds no limit (or predates it).
    public func chargeLimit() async throws(BusError) -> ChargeLimitSetting? {
        let value: BusValue
        do throws(BusError) {
            value = try await connection.property(
                destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName, name: "ChargeLimit")
        } catch {
            if error.remoteName == "org.freedesktop.DBus.Error.UnknownProperty" || error.remoteName == "org.freedesktop.DBus.Error.InvalidArgs" {
                return nil
            }
            throw error
        }
        return try ChargeLimitSetting.decode(value)
    }
}

/// Without the daemon: the limit written once with `ChargeLimitApplier`, battery by battery.
public enum DirectChargeLimit {
    public struct Result: Sendable {
        public var battery: String
        public var outcome: Swift.Result<ChargeLimitOutcome, ChargeLimitError>
    }

    /// Applies `limit` to each of `batteries` under `root`; one refusal does not stop the others.
    public static func apply(_ limit: ChargeLimitRequest, root: FileRoot, batteries: [String]) -> [Result] {
        batteries.map { name in
            let files = SysfsChargeControlFiles(root: root, battery: name)
            do throws(ChargeLimitError) {
                return Result(battery: name, outcome: .success(try ChargeLimitApplier.apply(limit, to: files)))
            } catch {
                return Result(battery: name, outcome: .failure(error))
            }
        }
    }
}
