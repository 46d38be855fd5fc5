/// A connection to a D-Bus bus, usable from any task.
///
/// sd-bus is not thread-safe, so the connection lives on its own thread (see `SdBusGateway`),
/// which sleeps in poll(2) until the bus or this facade has work: an idle connection causes no
/// wakeups. Every method here queues its work to that thread and awaits the result.
public final class BusConnection: Sendable {
    /// This connection's unique name, e.g. `:1.7`.
    public let uniqueName: String
    /// The address it connected to, e.g. `unix:path=/run/dbus/system_bus_socket`.
    public let address: String
    private let gateway: SdBusGateway

    private init(gateway: SdBusGateway, uniqueName: String, address: String) {
        self.gateway = gateway
        self.uniqueName = uniqueName
        self.address = address
    }

    deinit { gateway.requestClose() }

    /// Connects to the bus at `address` as a bus client (Hello), e.g. a private dbus-daemon's.
    public static func open(address: String) async throws(BusError) -> BusConnection {
        let (gateway, unique) = try await SdBusGateway.open(address: address)
        return BusConnection(gateway: gateway, uniqueName: unique, address: address)
    }

    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, or the standard socket.
    public static func system(environment: [String: String]? = nil) async throws(BusError) -> BusConnection {
        let environment = environment ?? Syscalls.environment()
        return try await open(
            address: environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket")
    }

    /// The session bus: `DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus`.
    public static func session(environment: [String: String]? = nil) async throws(BusError) -> BusConnection {
        let environment = environment ?? Syscalls.environment()
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"] { return try await open(address: address) }
        guard let runtime = environment["XDG_RUNTIME_DIR"] else {
            throw .unexpected(operation: "session bus", detail: "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
        }
        return try await open(address: "unix:path=\(runtime)/bus")
    }

    /// Owns `name` (without queueing). `BusError.nameTaken` names the owner's pid.
    public func requestName(_ name: String) async throws(BusError) {
        try await gateway.perform("RequestName") { loop throws(BusError) in try loop.requestName(name) }
    }

    public func releaseName(_ name: String) async throws(BusError) {
        try await gateway.perform("ReleaseName") { loop throws(BusError) in try loop.releaseName(name) }
    }

    /// Exports `interface` at `path`: properties, methods and signals, with introspection and
    /// org.freedesktop.DBus.Properties provided by sd-bus.
    public func export(_ interface: BusInterface, at path: String) async throws(BusError) {
        try await gateway.perform("export") { loop throws(BusError) in try loop.export(interface, at: path) }
    }

    /// Serves org.freedesktop.DBus.ObjectManager at `path` for the objects exported below it.
    public func addObjectManager(at path: String) async throws(BusError) {
        try await gateway.perform("ObjectManager") { loop throws(BusError) in try loop.addObjectManager(at: path) }
    }

    public func removeObjectManager(at path: String) async {
        _ = try? await gateway.perform("ObjectManager") { loop in loop.removeObjectManager(at: path) }
    }

    public func unexport(path: String, interface: String) async {
        _ = try? await gateway.perform("unexport") { loop in loop.unexport(path: path, interface: interface) }
    }

    /// Emits a signal to every listener, or with `destination` (a unique name) to that client alone.
    public func emitSignal(path: String, interface: String, member: String, arguments: [BusValue], destination: String? = nil) async throws(BusError) {
        try await gateway.perform("\(interface).\(member)") { loop throws(BusError) in
            try loop.emitSignal(path: path, interface: interface, member: member, arguments: arguments, destination: destination)
        }
    }

    /// org.freedesktop.DBus.Properties.PropertiesChanged for `names`, with their current values
    /// read through the getters.
    public func emitPropertiesChanged(path: String, interface: String, names: [String]) async throws(BusError) {
        try await gateway.perform("PropertiesChanged") { loop throws(BusError) in
            try loop.emitPropertiesChanged(path: path, interface: interface, names: names)
        }
    }

    /// Calls a method on another service and returns its reply's values. A D-Bus error reply
    /// is `BusError.remote` with its error name. `timeout` nil is sd-bus's default (25 s).
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue] = [],
        timeout: Duration? = nil
    ) async throws(BusError) -> [BusValue] {
        let micros = timeout.map { UInt64(max(1, $0.components.seconds * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000)) } ?? 0
        return try await gateway.call(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeoutMicroseconds: micros)
    }

    /// org.freedesktop.DBus.Properties.Get, unwrapped from its variant.
    public func property(destination: String, path: String, interface: String, name: String) async throws(BusError) -> BusValue {
        let reply = try await call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(interface), .string(name)])
        guard reply.count == 1 else { throw .unexpected(operation: "Get \(name)", detail: "reply \(reply)") }
        return reply[0].unwrapped
    }

    /// The uid and pid of the connection `busName` (a caller's `BusMethodCall.sender`), as the
    /// bus daemon reports them.
    public func credentials(of busName: String) async throws(BusError) -> BusCredentials {
        // One GetConnectionCredentials call: the uid and pid the bus recorded (SO_PEERCRED) when
        // that connection was made, answered together, as polkit and systemd ask for them.
        let reply = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionCredentials", arguments: [.string(busName)])
        guard case .array(_, let entries)? = reply.first else {
            throw .unexpected(operation: "GetConnectionCredentials", detail: "reply \(reply)")
        }
        var fields: [String: BusValue] = [:]
        for case .dictEntry(let key, let value) in entries { if let key = key.stringValue { fields[key] = value.unwrapped } }
        guard let uid = fields["UnixUserID"]?.uint32Value, let pid = fields["ProcessID"]?.uint32Value else {
            throw .unexpected(operation: "GetConnectionCredentials", detail: "no UnixUserID and ProcessID for \(busName) in \(reply)")
        }
        return BusCredentials(busName: busName, uid: uid, pid: pid)
    }

    /// Signals matching `rule` (e.g. `type='signal',interface='org.joule.Energy1'`). The rule is
    /// in place when this returns; the stream ends when the connection closes.
    public func signals(matching rule: String) async throws(BusError) -> AsyncStream<BusSignalMessage> {
        let queue = HandoffQueue<BusSignalMessage>()
        let id = try await gateway.perform("AddMatch") { loop throws(BusError) in
            try loop.addMatch(rule, queue: queue)
        }
        let gateway = self.gateway
        return queue.stream { gateway.submit { loop in loop.removeMatch(id) } }
    }

    /// Signals matching any of `rules`, in one stream in the order the bus delivered them
    /// (separate streams lose the order between them: a name's owner change could overtake a
    /// signal its old owner sent before it). A message matching two rules arrives twice.
    public func signals(matchingAny rules: [String]) async throws(BusError) -> AsyncStream<BusSignalMessage> {
        let queue = HandoffQueue<BusSignalMessage>()
        let ids = try await gateway.perform("AddMatch") { loop throws(BusError) in
            var ids: [Int] = []
            do throws(BusError) {
                for rule in rules { ids.append(try loop.addMatch(rule, queue: queue)) }
            } catch {
                for id in ids { loop.removeMatch(id) }
                throw error
            }
            return ids
        }
        let gateway = self.gateway
        return queue.stream { gateway.submit { loop in for id in ids { loop.removeMatch(id) } } }
    }

    /// How many match rules are in place, for tests that a consumer gone removes its own.
    func matchCount() async throws(BusError) -> Int {
        try await gateway.perform("matchCount") { loop in loop.matchCount }
    }

    /// How often the bus thread has woken from poll(2), for tests of frugality.
    var loopWakeups: Int { gateway.wakeups }

    /// Yields once, why, if the bus goes away (its daemon exits or drops this connection),
    /// then finishes; finishes with nothing when `close` ends the connection.
    public func lost() -> AsyncStream<BusError> { gateway.lost() }

    /// Releases every export and match, fails calls awaiting a reply, and closes the bus.
    public func close() async { await gateway.close() }
}
