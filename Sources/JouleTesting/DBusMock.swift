import Foundation
import JouleHardware

/// A python3-dbusmock service on a private bus, as power-profiles-daemon's and UPower's own
/// suites use it: `python3 -m dbusmock --template NAME` (or a bare object), started with both bus
/// addresses pointed at the private bus, ready once its name is owned, killed by `stop()`.
public final class DBusMock: Sendable {
    /// What to run: a dbusmock template, or a bare object to fill through the Mock interface.
    public struct Template: Sendable, Hashable {
        /// The template's module name, or nil for a bare object.
        public var name: String?
        public var busName: String
        /// The main object's path.
        public var path: String
        public var interface: String

        public init(name: String?, busName: String, path: String, interface: String) {
            self.name = name
            self.busName = busName
            self.path = path
            self.interface = interface
        }

        /// Owns `net.hadess.PowerProfiles` only. Holds survive their holder's exit and
        /// `ProfileReleased` is never emitted by itself (send it with `emitSignal`).
        public static let powerProfilesDaemon = Template(
            name: "power_profiles_daemon", busName: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
            interface: "net.hadess.PowerProfiles")
        /// Denies every action until `setAllowed` or `AllowUnknown`.
        public static let polkitd = Template(
            name: "polkitd", busName: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
            interface: "org.freedesktop.PolicyKit1.Authority")
        public static let upower = Template(
            name: "upower", busName: "org.freedesktop.UPower", path: "/org/freedesktop/UPower",
            interface: "org.freedesktop.UPower")
        public static let networkManager = Template(
            name: "networkmanager", busName: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
            interface: "org.freedesktop.NetworkManager")

        /// bluetoothd: the main object `/` is the ObjectManager; `AddAdapter`/`AddDevice` on
        /// `org.bluez.Mock` add objects. It has no AdvertisementMonitorManager1 (add it with
        /// `addProperties`/`addMethod` on the adapter's path).
        public static let bluez = Template(
            name: "bluez5", busName: "org.bluez", path: "/", interface: "org.bluez.Mock")

        /// A bare object with no methods or properties yet (`addProperties`, `addMethods`).
        public static let systemd = Template(
            name: "systemd", busName: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
            interface: "org.freedesktop.systemd1.Manager")
        public static let logind = Template(
            name: "logind", busName: "org.freedesktop.login1", path: "/org/freedesktop/login1",
            interface: "org.freedesktop.login1.Manager")

        /// A session-bus notification server: Notify returns 1, 2, … (or the replaced id),
        /// CloseNotification emits NotificationClosed(id, 3); ActionInvoked only by `emitSignal`.
        public static let notificationDaemon = Template(
            name: "notification_daemon", busName: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications")

        public static func bare(busName: String, path: String, interface: String) -> Template {
            Template(name: nil, busName: busName, path: path, interface: interface)
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case missing
        case didNotAppear(busName: String, seconds: Int, output: String)
        case exited(busName: String, status: Int32, output: String)

        public var description: String {
            switch self {
            case .missing:
                "python3-dbusmock is not installed for \(DBusMock.python); run scripts/install-deps.sh"
            case .didNotAppear(let name, let seconds, let output):
                "dbusmock did not own \(name) within \(seconds) s; its output: \(output)"
            case .exited(let name, let status, let output):
                "dbusmock for \(name) exited with status \(status); its output: \(output)"
            }
        }
    }

    /// Always the system interpreter: a pyenv shim earlier on PATH has no dbusmock.
    public static let python = "/usr/bin/python3"

    /// Whether `python3 -m dbusmock` can run here (checked once, by importing it, on a thread
    /// of its own: `.enabled { await DBusMock.isAvailable }`).
    public static var isAvailable: Bool {
        get async { await availability.value }
    }

    private static let availability = Task {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? await Program.run(python, ["-c", "import dbusmock"]))?.status == 0
    }

    /// The Mock control interface every dbusmock object has.
    public static let mockInterface = "org.freedesktop.DBus.Mock"

    public let template: Template
    /// A connection of our own to the private bus, used to wait for the mock and to drive it.
    public let connection: BusConnection
    private let process: Process
    private let logFile: URL

    /// Starts the mock on `address` (a `PrivateBusDaemon`'s) and waits up to 10 s for its name.
    /// `parameters` is the template's JSON dictionary, e.g. `{"ActiveProfile": "power-saver"}`.
    public init(_ template: Template, parameters: String? = nil, address: String) async throws {
        guard await Self.isAvailable else { throw Failure.missing }
        self.template = template
        var arguments = ["-m", "dbusmock"]
        if let name = template.name {
            // The template's SYSTEM_BUS flag picks the bus; both addresses name the private one.
            arguments += ["--template", name]
            if let parameters { arguments += ["--parameters", parameters] }
        } else {
            arguments += ["--system", template.busName, template.path, template.interface]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        // Unbuffered, so that a failure's output is complete when we read it.
        environment["PYTHONUNBUFFERED"] = "1"
        connection = try await BusConnection.open(address: address)
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("joule-dbusmock-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        // A file, not a pipe: the mock logs every call to stdout and would block on a full pipe.
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = log
        process.standardError = log
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: logFile)
            throw error
        }
        do {
            try await waitForName()
        } catch {
            stop()
            throw error
        }
    }

    private func waitForName() async throws {
        let seconds = 10
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if !process.isRunning {
                throw Failure.exited(busName: template.busName, status: process.terminationStatus, output: output)
            }
            if try await Self.hasOwner(template.busName, on: connection) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure.didNotAppear(busName: template.busName, seconds: seconds, output: output)
    }

    /// org.freedesktop.DBus.NameHasOwner.
    public static func hasOwner(_ name: String, on bus: BusConnection) async throws(BusError) -> Bool {
        let reply = try await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)])
        return reply.first?.boolValue ?? false
    }

    /// What the mock printed (its call log and any traceback).
    public var output: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    /// Whether the mock process still runs.
    public var isRunning: Bool { process.isRunning }

    /// Kills the mock; its name vanishes from the bus as its connection drops. It does not
    /// wait for the exit (Foundation reaps the child): a wait would block the cooperative
    /// thread of a `defer`.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: logFile)
    }

    /// Calls any method on the mock's object (by default the main object's Mock interface).
    @discardableResult
    public func call(
        _ member: String, interface: String = DBusMock.mockInterface, path: String? = nil, arguments: [BusValue] = []
    ) async throws(BusError) -> [BusValue] {
        try await connection.call(
            destination: template.busName, path: path ?? template.path, interface: interface, member: member,
            arguments: arguments)
    }

    /// Mock.EmitSignal from the main object: `signature` is the arguments' D-Bus signature.
    public func emitSignal(interface: String, name: String, signature: String, arguments: [BusValue]) async throws(BusError) {
        try await call(
            "EmitSignal",
            arguments: [
                .string(interface), .string(name), .string(signature),
                .array(elementSignature: "v", arguments.map { .variant($0) }),
            ])
    }

    /// org.freedesktop.DBus.Properties.Set on the main object; the mock emits PropertiesChanged.
    public func setProperty(interface: String, name: String, value: BusValue) async throws(BusError) {
        try await call(
            "Set", interface: "org.freedesktop.DBus.Properties",
            arguments: [.string(interface), .string(name), .variant(value)])
    }

    /// Mock.AddProperties on the main object (or the object at `path`), for a bare mock.
    public func addProperties(interface: String, _ properties: [(String, BusValue)], path: String? = nil) async throws(BusError) {
        try await call("AddProperties", path: path, arguments: [.string(interface), .variantDictionary(properties)])
    }

    /// Mock.AddMethod: `code` is Python run with `args` bound, setting `ret` for a reply.
    public func addMethod(
        interface: String, name: String, in inSignature: String, out outSignature: String, code: String, path: String? = nil
    ) async throws(BusError) {
        try await call(
            "AddMethod", path: path,
            arguments: [.string(interface), .string(name), .string(inSignature), .string(outSignature), .string(code)])
    }

    /// Mock.GetMethodCalls: the arguments of every logged call of `method` on the object at `path`.
    public func methodCalls(_ method: String, path: String? = nil) async throws(BusError) -> [[BusValue]] {
        let reply = try await call("GetMethodCalls", path: path, arguments: [.string(method)])
        guard case .array(_, let calls)? = reply.first else { return [] }
        return calls.compactMap { call in
            guard case .structure(let fields) = call, fields.count == 2, case .array(_, let arguments) = fields[1] else { return nil }
            return arguments.map(\.unwrapped)
        }
    }

    /// polkitd template: the actions CheckAuthorization allows from now on.
    public func setAllowed(_ actions: [String]) async throws(BusError) {
        try await call("SetAllowed", arguments: [.array(elementSignature: "s", actions.map { .string($0) })])
    }
}

/// Whether dbus-daemon and python3-dbusmock (both from scripts/install-deps.sh) are here;
/// dbusmock is checked once, off the cooperative pool.
public func dbusMockUsable() async -> Bool {
    guard PrivateBusDaemon.executable != nil else { return false }
    return await DBusMock.isAvailable
}
