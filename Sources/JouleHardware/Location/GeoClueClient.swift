import JouleWire

/// Joule as one GeoClue2 client on the system bus, through the sd-bus gateway
/// (`BusConnection`, which keeps every sd-bus object on its own thread):
/// `Manager.CreateClient`, then `DesktopId` `joule`, `RequestedAccuracyLevel`,
/// `DistanceThreshold` and `TimeThreshold` set on the client, `Start` and `Stop`, and the
/// client's `LocationUpdated(old, new)` with the new Location object's properties read.
///
/// `CreateClient`, not `GetClient`: GetClient hands every call from one bus connection the same
/// client object, so two sessions in one process (the daemon's, or a test's) would share one
/// level and one pair of thresholds; CreateClient makes one per session, and `DeleteClient`
/// lets GeoClue drop it (GeoClue's Manager docs: long-running programs should delete clients
/// they no longer need, or GeoClue keeps running for them).
///
/// `Stop` is what lets GeoClue turn its sources (GPS, Wi-Fi scans) off: GeoClue stops a
/// source when no started client needs it.
///
/// GeoClue leaving the bus is an event (`.vanished`); its return is another (`.appeared`),
/// after which the client is gone and must be created again.
public final class GeoClueClient: Sendable {
    public static let service = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    public static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    public static let clientInterface = "org.freedesktop.GeoClue2.Client"
    /// The desktop id GeoClue's whitelist knows joule by (`[joule]`).
    public static let desktopId = "joule"
    static let properties = "org.freedesktop.DBus.Properties"

    public enum Event: Sendable, Hashable {
        /// `LocationUpdated` on `client`: the new Location object's path.
        case locationUpdated(client: String, location: String)
        /// GeoClue's name lost its owner: every client is gone.
        case vanished
        /// GeoClue's name has an owner again (`owner`, a unique name).
        case appeared(owner: String)
        /// `interrupt()`: the session was told to end (SIGINT, SIGTERM).
        case interrupted
    }

    /// Ends the reader's wait at once (for a signal handler): the receiver reads `.end` from
    /// now on, so the engine prints its summary and returns.
    public func interrupt() { events.push(.interrupted) }

    /// What the client asks GeoClue for.
    public struct Settings: Sendable, Hashable {
        public var level: GeoClueAccuracyLevel
        /// GeoClue's `DistanceThreshold`: no `LocationUpdated` for a move shorter than this, metres.
        public var distanceThresholdM: UInt32
        /// GeoClue's `TimeThreshold`: no `LocationUpdated` sooner than this after the last, seconds.
        public var timeThresholdS: UInt32

        public init(level: GeoClueAccuracyLevel, distanceThresholdM: UInt32 = 0, timeThresholdS: UInt32 = 0) {
            self.level = level
            self.distanceThresholdM = distanceThresholdM
            self.timeThresholdS = timeThresholdS
        }
    }

    private struct State {
        var clientPath: String?
        var owner: String?
        var started = false
        var tasks: [Task<Void, Never>] = []
    }

    public let bus: BusConnection
    /// How long a call to GeoClue may take (GeoClue 2.6 holds CreateClient until an agent for
    /// the caller's uid registers, which may be never).
    public let callTimeout: Duration
    private let state = Locked(State())
    private let events = DeadlineMailbox<Event>()

    private init(bus: BusConnection, callTimeout: Duration) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    /// Subscribes to GeoClue's signals on `bus` (the client owns the connection from now on and
    /// closes it in `close()`); creates no client yet. Fails when GeoClue is neither running nor
    /// activatable on the bus.
    public static func open(bus: BusConnection, callTimeout: Duration = .seconds(10)) async throws(GeoClueError) -> GeoClueClient {
        do throws(GeoClueError) {
            let owner = try await probe(bus: bus)
            let client = GeoClueClient(bus: bus, callTimeout: callTimeout)
            let signals: AsyncStream<BusSignalMessage>
            do throws(BusError) {
                // One stream, in the bus's order: a name change must not overtake a signal its
                // old owner sent before it.
                signals = try await bus.signals(matchingAny: [
                    "type='signal',interface='\(clientInterface)',member='LocationUpdated'",
                    "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'",
                ])
            } catch {
                throw .call(operation: "AddMatch", detail: "\(error)")
            }
            client.state.withLock { $0.owner = owner }
            let task = Task { [weak client] in
                for await signal in signals {
                    guard let client else { return }
                    client.handle(signal)
                }
            }
            client.state.withLock { $0.tasks = [task] }
            return client
        } catch {
            await bus.close()
            throw error
        }
    }

    /// Whether GeoClue can be asked on `bus`: the unique name owning `org.freedesktop.GeoClue2`,
    /// "activatable" when nobody owns it but the bus starts it on the first call (as systemd
    /// does for geoclue.service), else `.unavailable` saying what the bus said.
    @discardableResult
    public static func probe(bus: BusConnection) async throws(GeoClueError) -> String {
        let names: [BusValue]
        do throws(BusError) {
            if let owner = try await owner(on: bus) { return owner }
            let reply = try await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListActivatableNames")
            guard case .array(_, let list)? = reply.first else {
                throw BusError.unexpected(operation: "ListActivatableNames", detail: "reply \(reply)")
            }
            names = list
        } catch {
            throw .unavailable(detail: "\(error)")
        }
        if names.contains(.string(service)) { return "activatable" }
        throw .unavailable(detail: "nobody owns \(service) on \(bus.address), and the bus cannot start it")
    }

    /// The whole check for `--source auto`: connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`
    /// in `environment`, else the standard socket), probes, closes. nil when GeoClue can be
    /// asked, else what stood in the way.
    public static func unavailability(environment: [String: String]? = nil) async -> GeoClueError? {
        let bus: BusConnection
        do throws(BusError) { bus = try await BusConnection.system(environment: environment) } catch {
            return .unavailable(detail: "cannot connect to the system bus: \(error)")
        }
        var failure: GeoClueError?
        do throws(GeoClueError) { try await probe(bus: bus) } catch { failure = error }
        await bus.close()
        return failure
    }

    /// org.freedesktop.DBus.GetNameOwner for GeoClue's name: its unique name, or nil.
    static func owner(on bus: BusConnection) async throws(BusError) -> String? {
        do {
            let reply = try await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(service)])
            return reply.first?.stringValue
        } catch {
            if error.remoteName == "org.freedesktop.DBus.Error.NameHasNoOwner" { return nil }
            throw error
        }
    }

    private func handle(_ signal: BusSignalMessage) {
        let args = signal.arguments
        if signal.member == "NameOwnerChanged" {
            guard args.count == 3, let old = args[1].stringValue, let new = args[2].stringValue else { return }
            if !old.isEmpty {
                // The client lived in the old owner: it is gone with it. (A first owner, GeoClue
                // activated by joule's own CreateClient, takes no client away: the reply and
                // this signal may reach joule in either order.)
                state.withLock { state in
                    state.owner = nil
                    state.clientPath = nil
                    state.started = false
                }
                events.push(.vanished)
            }
            if !new.isEmpty {
                state.withLock { $0.owner = new }
                events.push(.appeared(owner: new))
            }
            return
        }
        // LocationUpdated(o old, o new), from GeoClue's owner, on joule's own client.
        guard args.count == 2, let location = args[1].stringValue else { return }
        let ours = state.withLock { state in
            state.clientPath == signal.path && (state.owner == nil || state.owner == signal.sender || state.owner == "activatable")
        }
        guard ours else { return }
        events.push(.locationUpdated(client: signal.path, location: location))
    }

    /// The client's path while it exists.
    public var clientPath: String? { state.withLock { $0.clientPath } }
    /// Whether joule's client is started (Start answered, no Stop since, GeoClue still there).
    public var isStarted: Bool { state.withLock { $0.started } }

    /// `CreateClient`, then DesktopId, RequestedAccuracyLevel, DistanceThreshold and TimeThreshold
    /// set on the new client. Returns its path.
    @discardableResult
    public func createClient(_ settings: Settings) async throws(GeoClueError) -> String {
        let reply = try await call(Self.managerPath, Self.managerInterface, "CreateClient")
        guard let path = reply.first?.stringValue, reply.first?.signature == "o" else {
            throw .call(operation: "CreateClient", detail: "unexpected reply \(reply)")
        }
        // The owner's unique name, for the sender check (GeoClue may have been activated by it).
        let owner = try? await Self.owner(on: bus)
        state.withLock { state in
            state.clientPath = path
            state.started = false
            if let owner { state.owner = owner }
        }
        try await set("DesktopId", .string(Self.desktopId), on: path)
        try await set("RequestedAccuracyLevel", .uint32(settings.level.rawValue), on: path)
        try await set("DistanceThreshold", .uint32(settings.distanceThresholdM), on: path)
        try await set("TimeThreshold", .uint32(settings.timeThresholdS), on: path)
        return path
    }

    /// Sets RequestedAccuracyLevel. GeoClue reads it at `Start`, so a started client is stopped
    /// and started again for the new level to take effect.
    public func setLevel(_ level: GeoClueAccuracyLevel) async throws(GeoClueError) {
        guard let path = clientPath else { return }
        try await set("RequestedAccuracyLevel", .uint32(level.rawValue), on: path)
        if isStarted {
            try await stop()
            try await start()
        }
    }

    /// `Start`: GeoClue authorizes joule (whitelist, agent) and turns its sources on.
    public func start() async throws(GeoClueError) {
        guard let path = clientPath else { throw .call(operation: "Start", detail: "no client (GeoClue restarted)") }
        _ = try await call(path, Self.clientInterface, "Start")
        state.withLock { $0.started = $0.clientPath == path }
    }

    /// `Stop`: GeoClue may turn its sources off. Nothing to do when not started.
    public func stop() async throws(GeoClueError) {
        let path = state.withLock { state -> String? in
            defer { state.started = false }
            return state.started ? state.clientPath : nil
        }
        guard let path else { return }
        _ = try await call(path, Self.clientInterface, "Stop")
    }

    /// The Location object at `path` (Properties.GetAll) as a fix.
    public func location(at path: String, receivedMicros: Int64) async throws(GeoClueError) -> LocationFix {
        let reply = try await call(path, Self.properties, "GetAll", [.string(GeoClueLocation.interface)])
        guard let properties = reply.first?.stringKeyedEntries else {
            throw .badLocation(path: path, detail: "GetAll answered \(reply)")
        }
        return try GeoClueLocation.fix(properties: properties, path: path, receivedMicros: receivedMicros)
    }

    /// The next event, or nil when `deadline` passes first (nil: wait as long as it takes).
    public func nextEvent(before deadline: ContinuousClock.Instant?) async -> Event? {
        await events.next(before: deadline)
    }

    /// Drops the `LocationUpdated` events not read yet: what GeoClue said while joule had its
    /// client stopped is not a fix joule asked for.
    public func discardPendingLocations() {
        events.removeAll { if case .locationUpdated = $0 { true } else { false } }
    }

    /// Stops and deletes the client if there is one, and closes the bus connection.
    public func close() async {
        try? await stop()
        if let path = clientPath {
            _ = try? await call(Self.managerPath, Self.managerInterface, "DeleteClient", [.objectPath(path)])
        }
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        await bus.close()
    }

    private func set(_ name: String, _ value: BusValue, on path: String) async throws(GeoClueError) {
        _ = try await call(path, Self.properties, "Set", [.string(Self.clientInterface), .string(name), .variant(value)], label: "Set \(name)")
    }

    private func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = [], label: String? = nil
    ) async throws(GeoClueError) -> [BusValue] {
        let operation = label ?? member
        do throws(BusError) {
            return try await bus.call(
                destination: Self.service, path: path, interface: interface, member: member, arguments: arguments,
                timeout: callTimeout)
        } catch {
            throw Self.failure(operation, error, timeout: callTimeout)
        }
    }

    /// A failed call as the user should read it.
    static func failure(_ operation: String, _ error: BusError, timeout: Duration) -> GeoClueError {
        let message: String = if case .remote(_, _, _, let message) = error { message } else { "\(error)" }
        switch error.remoteName {
        case "org.freedesktop.DBus.Error.AccessDenied":
            return .accessDenied(operation: operation, message: message)
        case "org.freedesktop.DBus.Error.ServiceUnknown":
            return .vanished
        case "org.freedesktop.DBus.Error.NoReply" where message.contains("disconnected"):
            // dbus-daemon's answer when GeoClue exits before replying.
            return .vanished
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return .noAnswer(operation: operation, seconds: Int(timeout.components.seconds))
        default:
            return .call(operation: operation, detail: "\(error)")
        }
    }
}
