import JouleWire
import JouleHardware
import JouleEnergy
import JouleHistory

/// A client of a running `joule daemon`: the `org.joule.Energy1` object on the session or
/// system bus, for `joule status`, `joule lowpower`, `joule watch` and `JouleProcessInfo`.
public final class DaemonClient: Sendable {
    /// Which bus the daemon was found on.
    public enum Bus: String, Sendable, Hashable {
        case session, system
    }

    /// What `events()` delivers.
    public enum Event: Sendable, Equatable {
        /// `PowerStateDidChange`, `ThermalStateDidChange`, or a `warningLevelChanged` derived
        /// from the `WarningLevel` property, stamped with the time it arrived and the states
        /// it left behind.
        case energy(TimedEvent)
        /// The properties after a `PropertiesChanged`.
        case state(EnergyBusState)
    }

    public let bus: Bus
    let connection: BusConnection

    private init(bus: Bus, connection: BusConnection) {
        self.bus = bus
        self.connection = connection
    }

    /// The address of the bus the daemon was found on.
    public var address: String { connection.address }

    /// The daemon when `org.joule.Energy1` has an owner: on the session bus first
    /// (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` when that socket exists, as
    /// sd-bus and GDBus look it up), so a `joule daemon --session` is found; then on the system
    /// bus (`DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket). nil when neither has
    /// it. Never waits: a missing socket or a refused connection just means no daemon here,
    /// and `NameHasOwner` does not start a bus-activatable service.
    public static func find(environment: [String: String]) async -> DaemonClient? {
        guard let (bus, connection) = await connection(owning: EnergyBus.busName, environment: environment) else {
            return nil
        }
        return DaemonClient(bus: bus, connection: connection)
    }

    /// A connection to the first bus of `addresses(environment)` on which `name` has an owner,
    /// as `find` looks for the daemon; shared by the clients of each of its objects.
    static func connection(owning name: String, environment: [String: String]) async -> (Bus, BusConnection)? {
        for (bus, address) in addresses(environment) {
            guard let connection = try? await BusConnection.open(address: address) else { continue }
            let reply = try? await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner", arguments: [.string(name)], timeout: .seconds(2))
            if reply?.first?.boolValue == true { return (bus, connection) }
            await connection.close()
        }
        return nil
    }

    /// The buses to look on, in order; a session socket that does not exist is skipped.
    static func addresses(_ environment: [String: String]) -> [(Bus, String)] {
        var addresses: [(Bus, String)] = []
        if let session = environment["DBUS_SESSION_BUS_ADDRESS"], !session.isEmpty {
            addresses.append((.session, session))
        } else if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
                  FileSystem.kind(of: runtime + "/bus") != nil {
            addresses.append((.session, "unix:path=\(runtime)/bus"))
        }
        let system = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        addresses.append((.system, system ?? "unix:path=/run/dbus/system_bus_socket"))
        return addresses
    }

    /// `GetStatus`: the daemon's `status --json` object, as text.
    public func status() async throws(BusError) -> String {
        let reply = try await call("GetStatus", timeout: .seconds(10))
        guard reply.count == 1, let text = reply[0].stringValue else {
            throw .unexpected(operation: "GetStatus", detail: "expected one string, got \(reply)")
        }
        return text
    }

    /// `GetMetrics`: what the daemon's `/metrics` serves now, in Prometheus's text format.
    public func metrics() async throws(BusError) -> String {
        let reply = try await call("GetMetrics", timeout: .seconds(10))
        guard reply.count == 1, let text = reply[0].stringValue else {
            throw .unexpected(operation: "GetMetrics", detail: "expected one string, got \(reply)")
        }
        return text
    }

    /// `GetStatus`, decoded; a malformed object is `BusError.unexpected` naming the key.
    public func report() async throws(BusError) -> StatusReport {
        let text = try await status()
        do throws(StatusReportDecodingError) {
            return try StatusReport(json: text)
        } catch {
            throw .unexpected(operation: "GetStatus", detail: error.description)
        }
    }

    /// `GetHistory(since, until)`, decoded; a malformed object is `BusError.unexpected` naming
    /// the key. A month of rows is a few megabytes of JSON: the daemon may take a while.
    package func history(since: Double, until: Double) async throws(BusError) -> HistoryTimeline {
        let reply = try await call("GetHistory", arguments: [.double(since), .double(until)], timeout: .seconds(60))
        guard reply.count == 1, let text = reply[0].stringValue else {
            throw .unexpected(operation: "GetHistory", detail: "expected one string, got \(reply.count) values")
        }
        do throws(JSONDecodingError) {
            return try HistoryTimeline(json: text)
        } catch {
            throw .unexpected(operation: "GetHistory", detail: error.description)
        }
    }

    /// `SetLowPowerMode(mode)`. Refused with `org.freedesktop.DBus.Error.AccessDenied`
    /// (`BusError.remoteName`) when polkit or the daemon's rules say no. polkit may take a
    /// while, so this waits sd-bus's default 25 s.
    public func setLowPowerMode(_ mode: LowPowerOverride) async throws(BusError) {
        _ = try await call("SetLowPowerMode", arguments: [.string(mode.rawValue)], timeout: nil)
    }

    /// The mode the daemon holds, as `joule lowpower` words it: `on` or `off` when set by hand
    /// (source `manual`), else `auto` (the battery rule, or the power-saver profile).
    public func lowPowerOverride() async throws(BusError) -> LowPowerOverride {
        let state = try await state()
        guard state.source == .manual else { return .auto }
        return state.lowPowerMode ? .on : .off
    }

    /// Every property at once (`Properties.GetAll`), each checked for its contract type.
    public func state() async throws(BusError) -> EnergyBusState {
        let operation = "GetAll \(EnergyBus.interfaceName)"
        let reply = try await connection.call(
            destination: EnergyBus.busName, path: EnergyBus.objectPath,
            interface: "org.freedesktop.DBus.Properties", member: "GetAll",
            arguments: [.string(EnergyBus.interfaceName)], timeout: .seconds(10))
        guard reply.count == 1, case .array(_, let entries) = reply[0] else {
            throw .unexpected(operation: operation, detail: "expected a{sv}, got \(reply)")
        }
        let values = try Self.dictionary(entries, operation: operation)
        var state = EnergyBusState()
        for name in Self.propertyNames {
            // ChargeLimit came with issue 36: a daemon from before it has none.
            if name == "ChargeLimit", values[name] == nil { continue }
            guard let value = values[name] else { throw .unexpected(operation: operation, detail: "\(name) is missing") }
            try Self.apply(name, value, to: &state, operation: operation)
        }
        return state
    }

    /// The daemon's signals from now on. The match is in place and the properties are read
    /// before this returns, so nothing is missed between. The stream ends when the daemon
    /// leaves the bus (its name loses its owner), when the connection closes, or when the
    /// consumer stops iterating.
    public func events(clock: any JouleClock = SystemClock()) async throws(BusError) -> AsyncStream<Event> {
        let subscription = try await DaemonSignals.subscribe(
            on: connection, matching: "type='signal',sender='\(EnergyBus.busName)',path='\(EnergyBus.objectPath)'",
            ownedBy: EnergyBus.busName)
        let tracker = Tracker(try await state())
        return subscription.stream(holder: self, bufferingNewest: 256) { tracker.apply($0, at: clock.now()) }
    }

    public func close() async { await connection.close() }

    private func call(_ member: String, arguments: [BusValue] = [], timeout: Duration?) async throws(BusError) -> [BusValue] {
        try await connection.call(
            destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName,
            member: member, arguments: arguments, timeout: timeout)
    }

    // MARK: properties

    static let propertyNames = EnergyBusState().properties.map(\.0)

    /// `a{sv}` entries by name, values out of their variants.
    static func dictionary(_ entries: [BusValue], operation: String) throws(BusError) -> [String: BusValue] {
        var values: [String: BusValue] = [:]
        for entry in entries {
            guard case .dictEntry(let key, let value) = entry, let name = key.stringValue else {
                throw .unexpected(operation: operation, detail: "expected a{sv}, got \(entry)")
            }
            values[name] = value.unwrapped
        }
        return values
    }

    /// Sets property `name` on `state` from `value`, checking its type and its words.
    /// Properties the contract does not name are ignored (a newer daemon may add some).
    static func apply(_ name: String, _ value: BusValue, to state: inout EnergyBusState, operation: String) throws(BusError) {
        func bad(_ expected: String) -> BusError {
            .unexpected(operation: operation, detail: "\(name): expected \(expected), got \(value.signature) \(value)")
        }
        switch name {
        case "LowPowerMode":
            guard let on = value.boolValue else { throw bad("b") }
            state.lowPowerMode = on
        case "LowPowerModeSource":
            guard let source = value.stringValue.flatMap(LowPowerModeSource.init(rawValue:)) else {
                throw bad("s auto, manual or power-profiles-daemon")
            }
            state.source = source
        case "ThermalState":
            guard let thermal = value.stringValue.flatMap(ThermalState.init(name:)) else {
                throw bad("s nominal, fair, serious or critical")
            }
            state.thermalState = thermal
        case "OnBattery":
            guard let on = value.boolValue else { throw bad("b") }
            state.onBattery = on
        case "Percentage":
            guard let percentage = value.doubleValue else { throw bad("d") }
            state.percentage = percentage
        case "WarningLevel":
            guard let level = value.stringValue.flatMap(BatteryWarningLevel.init(rawValue:)) else {
                throw bad("s none, low, critical or action")
            }
            state.warningLevel = level
        case "ChargeLimit":
            guard value.signature == "a{sv}" else { throw bad("a{sv}") }
            state.chargeLimit = value
        default:
            break
        }
    }

    /// The properties as the signals leave them; turns signals into events. Shared by the
    /// forwarding task and `events()`, hence the lock.
    final class Tracker: Sendable {
        private let current: Locked<EnergyBusState>

        init(_ state: EnergyBusState) { current = Locked(state) }

        var state: EnergyBusState { current.withLock { $0 } }

        /// The events `message` means. A signal with the wrong arguments is dropped: one bad
        /// message from a daemon must not end a watch.
        func apply(_ message: BusSignalMessage, at timestamp: Double) -> [Event] {
            current.withLock { state -> [Event] in
                func timed(_ event: EnergyEvent) -> Event {
                    .energy(TimedEvent(
                        timestamp: timestamp, event: event, lowPowerMode: state.lowPowerMode, thermalState: state.thermalState))
                }
                let arguments = message.arguments
                switch (message.interface, message.member) {
                case (EnergyBus.interfaceName, "PowerStateDidChange"):
                    guard arguments.count == 2, let on = arguments[0].boolValue, let reason = arguments[1].stringValue else {
                        return []
                    }
                    state.lowPowerMode = on
                    return [timed(.powerStateDidChange(lowPowerMode: on, reason: reason))]
                case (EnergyBus.interfaceName, "ThermalStateDidChange"):
                    guard arguments.count == 3, let new = arguments[0].stringValue.flatMap(ThermalState.init(name:)),
                          let previous = arguments[1].stringValue.flatMap(ThermalState.init(name:)),
                          let cause = arguments[2].stringValue
                    else { return [] }
                    state.thermalState = new
                    return [timed(.thermalStateDidChange(state: new, previous: previous, cause: cause.isEmpty ? nil : cause))]
                case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                    guard arguments.count >= 2, arguments[0].stringValue == EnergyBus.interfaceName,
                          case .array(_, let entries) = arguments[1],
                          let values = try? DaemonClient.dictionary(entries, operation: "PropertiesChanged")
                    else { return [] }
                    var next = state
                    for (name, value) in values {
                        var trial = next
                        if (try? DaemonClient.apply(name, value, to: &trial, operation: "PropertiesChanged")) != nil {
                            next = trial
                        }
                    }
                    let previous = state
                    state = next
                    var events: [Event] = []
                    if next.warningLevel != previous.warningLevel {
                        events.append(timed(.warningLevelChanged(level: next.warningLevel, previous: previous.warningLevel)))
                    }
                    events.append(.state(next))
                    return events
                default:
                    return []
                }
            }
        }
    }
}
