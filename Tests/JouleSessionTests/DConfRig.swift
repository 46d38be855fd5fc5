import Foundation
import JouleHardware
import JouleTesting

/// A real dconf on a private session bus: dconf-service started on it with XDG_CONFIG_HOME,
/// XDG_RUNTIME_DIR and HOME in a temporary directory, so the user's own database is never
/// touched; `environment` is what gsettings needs to use it.
final class DConfRig: Sendable {
    static let service = "/usr/libexec/dconf-service"
    static let schema = "/usr/share/glib-2.0/schemas/org.gnome.desktop.interface.gschema.xml"

    /// Why the rig cannot run here, or nil (scripts/install-deps.sh installs what it needs).
    static func missing() async -> String? {
        if PrivateBusDaemon.executable == nil { return "no dbus-daemon" }
        if !FileManager.default.isExecutableFile(atPath: service) { return "no \(service) (apt dconf-service)" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/gsettings") { return "no gsettings (apt libglib2.0-bin)" }
        if !FileManager.default.fileExists(atPath: schema) { return "no org.gnome.desktop.interface (apt gsettings-desktop-schemas)" }
        return nil
    }

    /// dconf and python3-dbusmock both.
    static func usableWithDBusMock() async -> Bool {
        guard await missing() == nil else { return false }
        return await dbusMockUsable()
    }

    let bus: PrivateBusDaemon
    let home: URL
    let environment: [String: String]
    private let process: Process

    init() async throws {
        bus = try await PrivateBusDaemon()
        home = FileManager.default.temporaryDirectory.appendingPathComponent("joule-dconf-\(UUID().uuidString)")
        for sub in ["config", "runtime", "state"] {
            try FileManager.default.createDirectory(
                at: home.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home.path,
            "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
            "XDG_RUNTIME_DIR": home.appendingPathComponent("runtime").path,
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "GSETTINGS_BACKEND": "dconf",
        ]
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.service)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let probe = try await BusConnection.open(address: bus.address)
        defer { Task { await probe.close() } }
        let owned = try await eventually(timeout: 10) { try await DBusMock.hasOwner("ca.desrt.dconf", on: probe) }
        if !owned {
            stop()
            throw PrivateBusDaemon.Failure.missing("dconf-service did not own ca.desrt.dconf")
        }
    }

    var stateDirectory: String { home.appendingPathComponent("state").path }
    var configHome: String { home.appendingPathComponent("config").path }

    /// `gsettings ARGS` as a user would type it, the judge of what the engine did.
    func gsettings(_ arguments: [String]) async throws -> String {
        let result = try await Program.run("/usr/bin/gsettings", arguments, environment: environment, mergingErrors: true)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        bus.stop()
        try? FileManager.default.removeItem(at: home)
    }
}
