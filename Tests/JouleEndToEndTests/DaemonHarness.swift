import Foundation
import JouleHardware
import JouleTesting

#if canImport(Glibc)
import Glibc
#endif

/// One `joule daemon` under test: a private system bus, a writable fixture tree (a battery
/// fixture with the kernel's power knobs), its own state, runtime and config paths, and the
/// daemon process with its stderr kept for assertions.
final class DaemonHarness: @unchecked Sendable {
    let bus: PrivateBusDaemon
    let knobs: KnobTree
    let directory: URL
    var config: String { directory.appendingPathComponent("joule.yaml").path }
    var stateDirectory: String { directory.appendingPathComponent("state").path }
    var runtimeDirectory: String { knobs.runtimeDirectory }
    private(set) var process: Process?
    private var logURL: URL { directory.appendingPathComponent("daemon-\(launches).log") }
    private var launches = 0

    /// `fixture` names a tree in hw-fixtures (batteries and thermal zones); the knobs are an
    /// Intel laptop's (`KnobTree.intelLaptop`).
    init(fixture: String = "dell-xps-13-low-battery-discharging") async throws {
        bus = try await PrivateBusDaemon()
        knobs = try KnobTree.intelLaptop()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = CLIHarness.fixturesDirectory.appendingPathComponent(fixture)
        for top in ["sys", "proc"] {
            try Self.merge(source.appendingPathComponent(top), into: URL(fileURLWithPath: knobs.path).appendingPathComponent(top))
        }
    }

    deinit {
        // Not waited for: Foundation reaps the child, and a wait would block a cooperative thread.
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        bus.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Copies a directory tree file by file, keeping what is already there.
    static func merge(_ from: URL, into to: URL) throws {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: from.path) else { return }
        for case let relative as String in walker {
            let source = from.appendingPathComponent(relative), target = to.appendingPathComponent(relative)
            let attributes = try manager.attributesOfItem(atPath: source.path)
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?:
                try manager.createDirectory(at: target, withIntermediateDirectories: true)
            case .typeSymbolicLink?:
                try? manager.removeItem(at: target)
                try manager.createSymbolicLink(atPath: target.path, withDestinationPath: try manager.destinationOfSymbolicLink(atPath: source.path))
            default:
                if !manager.fileExists(atPath: target.path) {
                    try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try manager.copyItem(at: source, to: target)
                }
            }
        }
    }

    /// The daemon's environment: the private bus as the system bus, no session bus.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["JOULE_STATE_DIR"] = stateDirectory
        env["JOULE_RUNTIME_DIR"] = runtimeDirectory
        env["NOTIFY_SOCKET"] = nil
        return env
    }

    func writeConfig(_ text: String) throws {
        try text.write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// Starts `joule daemon --root TREE --config CONFIG` plus `arguments`, and waits (at most
    /// 30 s, a bound against hanging) until it is ready: it owns org.joule.Energy1 and has
    /// enacted its first state (what it tells systemd with READY=1, and logs).
    @discardableResult
    func start(_ arguments: [String] = [], environment: [String: String]? = nil, under prefix: [String] = []) async throws -> Process {
        let process = try launch(arguments, environment: environment, under: prefix)
        for _ in 0..<300 {
            if log.contains("joule daemon: ready: ") { return process }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("the daemon did not become ready: \(log)")
    }

    /// Starts the daemon without waiting for the name (for runs expected to fail); `prefix`
    /// is a command that execs it (e.g. `prlimit --nofile=64`).
    func launch(_ arguments: [String], environment: [String: String]? = nil, under prefix: [String] = []) throws -> Process {
        launches += 1
        // A --config the user names must exist: an empty one is the defaults.
        if !FileManager.default.fileExists(atPath: config) { try writeConfig("") }
        let process = Process()
        let command = [CLIHarness.binary.path, "daemon", "--root", knobs.path, "--config", config] + arguments
        process.executableURL = URL(fileURLWithPath: prefix.first ?? command[0])
        process.arguments = Array((prefix + command).dropFirst())
        process.environment = environment ?? self.environment
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardError = log
        process.standardOutput = log
        try process.run()
        self.process = process
        return process
    }

    /// The path of an attribute of the fixture's BAT0, through the class directory's link.
    func batteryAttribute(_ name: String) throws -> String {
        let path = knobs.path + "/sys/class/power_supply/BAT0/" + name
        guard FileManager.default.fileExists(atPath: path) else { throw HarnessError("no \(path) in the fixture") }
        return path
    }

    /// Everything the latest daemon logged so far.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Waits (at most 30 s) until the log contains `text`.
    func waitForLog(_ text: String) async throws {
        for _ in 0..<300 {
            if log.contains(text) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("the daemon never logged \"\(text)\": \(log)")
    }

    /// Sends `signal` and waits for the exit; returns the status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) async -> Int32 {
        guard let process else { return -1 }
        return await process.end(signal)
    }

    /// Sends `signal` without waiting for the exit, for a `defer` (which cannot await).
    func end(_ signal: Int32 = SIGTERM) {
        if let process, process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// A client connection to the private bus.
    func client() async throws -> BusConnection { try await BusConnection.open(address: bus.address) }

    func property(_ name: String, on client: BusConnection) async throws -> BusValue {
        try await client.property(destination: "org.joule.Energy1", path: "/org/joule/Energy1", interface: "org.joule.Energy1", name: name)
    }

    /// Waits (at most 30 s) until `name` reads `value`.
    func waitForProperty(_ name: String, _ value: BusValue, on client: BusConnection) async throws {
        var last: BusValue?
        for _ in 0..<300 {
            last = try await property(name, on: client)
            if last == value { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("\(name) stayed \(last.map(String.init(describing:)) ?? "unread"), never \(value): \(log)")
    }

    func call(_ member: String, _ arguments: [BusValue] = [], on client: BusConnection) async throws -> [BusValue] {
        try await client.call(
            destination: "org.joule.Energy1", path: "/org/joule/Energy1", interface: "org.joule.Energy1", member: member,
            arguments: arguments)
    }

    /// GetStatus, parsed.
    func status(on client: BusConnection) async throws -> [String: Any] {
        let reply = try await call("GetStatus", on: client)
        guard let text = reply.first?.stringValue,
              let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        else { throw HarnessError("GetStatus replied \(reply)") }
        return object
    }

    /// `lowPowerActions` as "knob state" strings.
    func actions(on client: BusConnection) async throws -> [String] {
        let actions = try await status(on: client)["lowPowerActions"] as? [[String: Any]] ?? []
        return actions.map { "\($0["knob"] ?? "?") \($0["state"] ?? "?")" }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
