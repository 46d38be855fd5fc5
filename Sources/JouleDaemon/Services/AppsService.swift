import JouleWire
import JouleHardware
import JouleApps

/// The `org.joule.Apps1` object of `joule daemon` (issue 14): `joule run` registers its app
/// (`Register`, `Attach`, `Exited`), and anyone moves, lists and watches apps (`Foreground`,
/// `Inactive`, `Background`, `Suspend`, `Terminate`, `List`, the `Event` signal). Callers are
/// known by the bus's record of their connection (uid and pid), never by what they send; an
/// app may be moved only by its own user or root. The contract is `data/org.joule.Apps1.xml`.
package final class AppsService: Sendable {

    /// What the daemon does for each method; `DaemonApps` provides them.
    package struct Handlers: Sendable {
        package var register: @Sendable (_ sender: String, _ credentials: BusCredentials, _ options: [String: BusValue]) async throws(BusMethodError) -> String
        package var attach: @Sendable (_ sender: String, _ credentials: BusCredentials, _ name: String, _ pid: UInt32, _ cgroup: String) async throws(BusMethodError) -> Void
        package var exited: @Sendable (_ sender: String, _ name: String, _ detail: String) async throws(BusMethodError) -> Void
        package var move: @Sendable (_ credentials: BusCredentials, _ request: AppLifecycleRequest, _ name: String) async throws(BusMethodError) -> Void
        package var list: @Sendable (_ credentials: BusCredentials) async -> String

        package init(
            register: @escaping @Sendable (String, BusCredentials, [String: BusValue]) async throws(BusMethodError) -> String,
            attach: @escaping @Sendable (String, BusCredentials, String, UInt32, String) async throws(BusMethodError) -> Void,
            exited: @escaping @Sendable (String, String, String) async throws(BusMethodError) -> Void,
            move: @escaping @Sendable (BusCredentials, AppLifecycleRequest, String) async throws(BusMethodError) -> Void,
            list: @escaping @Sendable (BusCredentials) async -> String
        ) {
            self.register = register
            self.attach = attach
            self.exited = exited
            self.move = move
            self.list = list
        }
    }

    private let bus: BusConnection
    private let handlers: Handlers

    private let signals: BusSignalEmitter

    private init(bus: BusConnection, handlers: Handlers, log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.handlers = handlers
        signals = BusSignalEmitter(bus: bus, path: AppsBus.objectPath, interface: AppsBus.interfaceName, log: log)
    }

    /// Exports the object; `log` hears signals that could not be sent.
    package static func export(
        on bus: BusConnection, handlers: Handlers, log: @escaping @Sendable (String) -> Void
    ) async throws(BusError) -> AppsService {
        let service = AppsService(bus: bus, handlers: handlers, log: log)
        try await bus.export(service.interface(), at: AppsBus.objectPath)
        return service
    }

    /// Emits `Event` with one `joule app events --json` line.
    package func announce(_ line: AppEventLine) async {
        await signals.signal("Event", [.string(line.json.serialized)])
    }

    private func credentials(_ call: BusMethodCall) async throws(BusMethodError) -> BusCredentials {
        do {
            return try await bus.credentials(of: call.sender)
        } catch {
            throw .accessDenied("cannot identify the caller \(call.sender): \(error)")
        }
    }

    private static func name(_ call: BusMethodCall) throws(BusMethodError) -> String {
        guard call.arguments.count == 1, let name = call.arguments[0].stringValue else {
            throw .invalidArgs("\(call.member) takes an app name (s)")
        }
        return name
    }

    private func interface() -> BusInterface {
        var methods: [BusInterface.Method] = [
            .init("Register", in: "a{sv}", inNames: ["options"], out: "s", outNames: ["socket"]) { call throws(BusMethodError) in
                guard call.arguments.count == 1, case .array(_, let entries) = call.arguments[0] else {
                    throw .invalidArgs("Register takes an a{sv} of options")
                }
                var options: [String: BusValue] = [:]
                for entry in entries {
                    guard case .dictEntry(let key, let value) = entry, let key = key.stringValue else {
                        throw .invalidArgs("Register: options must be a{sv}")
                    }
                    options[key] = value.unwrapped
                }
                let credentials = try await self.credentials(call)
                return [.string(try await self.handlers.register(call.sender, credentials, options))]
            },
            .init("Attach", in: "sus", inNames: ["name", "pid", "cgroup"]) { call throws(BusMethodError) in
                guard call.arguments.count == 3, let name = call.arguments[0].stringValue,
                      let pid = call.arguments[1].uint32Value, let cgroup = call.arguments[2].stringValue else {
                    throw .invalidArgs("Attach takes the app name (s), its pid (u) and its cgroup (s, empty for none)")
                }
                try await self.handlers.attach(call.sender, try await self.credentials(call), name, pid, cgroup)
                return []
            },
            .init("Exited", in: "ss", inNames: ["name", "detail"]) { call throws(BusMethodError) in
                guard call.arguments.count == 2, let name = call.arguments[0].stringValue,
                      let detail = call.arguments[1].stringValue else {
                    throw .invalidArgs("Exited takes the app name (s) and how it ended (s)")
                }
                try await self.handlers.exited(call.sender, name, detail)
                return []
            },
            .init("List", out: "s", outNames: ["json"]) { call throws(BusMethodError) in
                [.string(await self.handlers.list(try await self.credentials(call)))]
            },
        ]
        for request in AppLifecycleRequest.allCases {
            methods.append(.init(request.busMember, in: "s", inNames: ["name"]) { call throws(BusMethodError) in
                let name = try Self.name(call)
                try await self.handlers.move(try await self.credentials(call), request, name)
                return []
            })
        }
        return BusInterface(name: AppsBus.interfaceName, methods: methods, signals: [.init("Event", "s", names: ["json"])])
    }
}
