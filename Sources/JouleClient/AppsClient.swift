import JouleWire
import JouleHardware
import JouleApps

/// joule daemon's `org.joule.Apps1`, for `joule run` (registering its app) and `joule app`.
/// Found as the other clients find the daemon: the session bus first, then the system bus.
package final class AppsClient: Sendable {
    private let connection: BusConnection

    private init(connection: BusConnection) { self.connection = connection }

    /// nil when no daemon serves `org.joule.Apps1` on either bus.
    package static func find(environment: [String: String]) async -> AppsClient? {
        guard let (_, connection) = await DaemonClient.connection(owning: AppsBus.busName, environment: environment) else {
            return nil
        }
        return AppsClient(connection: connection)
    }

    private func call(_ member: String, _ arguments: [BusValue] = []) async throws(BusError) -> [BusValue] {
        try await connection.call(
            destination: AppsBus.busName, path: AppsBus.objectPath, interface: AppsBus.interfaceName,
            member: member, arguments: arguments, timeout: .seconds(10))
    }

    /// `Register`: reserves the name; returns the lifecycle socket's path.
    package func register(name: String, configuration: AppLifecycleMachine.Configuration) async throws(BusError) -> String {
        let options = BusValue.variantDictionary([
            ("name", .string(name)), ("grace", .double(configuration.grace.inSeconds)),
            ("backgroundBudget", .double(configuration.backgroundBudget.inSeconds)),
            ("cpuLimit", .double(configuration.cpuLimitPercent)), ("cpuWindow", .double(configuration.cpuWindow.inSeconds)),
            ("suspends", .bool(configuration.suspends)),
        ])
        guard let path = try await call("Register", [options]).first?.stringValue else {
            throw .unexpected(operation: "Register", detail: "no socket path in the reply")
        }
        return path
    }

    package func attach(name: String, pid: Int32, cgroup: String?) async throws(BusError) {
        _ = try await call("Attach", [.string(name), .uint32(UInt32(bitPattern: pid)), .string(cgroup ?? "")])
    }

    package func exited(name: String, detail: String) async throws(BusError) {
        _ = try await call("Exited", [.string(name), .string(detail)])
    }

    package func move(_ request: AppLifecycleRequest, app name: String) async throws(BusError) {
        _ = try await call(request.busMember, [.string(name)])
    }

    /// The caller's apps (every app for root), as `joule app list --json` objects.
    package func list() async throws(BusError) -> [JSONValue] {
        guard let text = try await call("List").first?.stringValue, let value = try? JSONParser.parse(text),
              let entries = value.arrayValue else {
            throw .unexpected(operation: "List", detail: "not a JSON array")
        }
        return entries
    }

    /// The `Event` signals, as event line objects.
    package func events() async throws(BusError) -> AsyncStream<JSONValue> {
        let signals = try await connection.signals(
            matching: "type='signal',sender='\(AppsBus.busName)',path='\(AppsBus.objectPath)',interface='\(AppsBus.interfaceName)',member='Event'")
        return AsyncStream { continuation in
            let task = Task {
                for await signal in signals {
                    if let text = signal.arguments.first?.stringValue, let line = try? JSONParser.parse(text) { continuation.yield(line) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    package func close() async { await connection.close() }

    /// Every lifecycle event line as it happens: those of this user's `joule run`s (through
    /// `local`'s control sockets) and, when joule daemon serves `org.joule.Apps1`, those of the
    /// apps it supervises. Ends once the local apps have exited and the daemon's signals end.
    package static func events(local: AppControlClient, environment: [String: String]) async -> AsyncStream<JSONValue> {
        let local = local.events()
        let daemon = await find(environment: environment)
        let remote = try? await daemon?.events()
        let (merged, continuation) = AsyncStream.makeStream(of: JSONValue.self)
        let pumps = Task {
            await withTaskGroup(of: Void.self) { group in
                // Local streams end with their apps; the daemon's lasts while it runs.
                group.addTask { for await line in local { continuation.yield(line) } }
                if let remote { group.addTask { for await line in remote { continuation.yield(line) } } }
            }
            continuation.finish()
            // The daemon's signals end when its client's connection closes, so it lives as long.
            withExtendedLifetime(daemon) {}
        }
        continuation.onTermination = { _ in pumps.cancel() }
        return merged
    }
}
