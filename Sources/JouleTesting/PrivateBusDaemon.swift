import Foundation
import JouleHardware

/// A private `dbus-daemon` for one test: its own config and socket in a temporary directory,
/// killed by `stop()`. Nothing touches the machine's system or session bus.
public final class PrivateBusDaemon: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case missing(String)
        case didNotListen(String)

        public var description: String {
            switch self {
            case .missing(let why): "dbus-daemon is not installed (\(why)); run scripts/install-deps.sh"
            case .didNotListen(let address): "dbus-daemon did not listen on \(address) within 5 s"
            }
        }
    }

    /// Where the daemon's binary is, or nil when it is not installed.
    public static let executable: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The client address, `unix:path=…/bus`.
    public let address: String
    public let directory: URL
    private let process: Process

    public init() async throws {
        guard let executable = Self.executable else { throw Failure.missing("no /usr/bin/dbus-daemon") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configPath = directory.appendingPathComponent("bus.conf").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config-file=\(configPath)", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // dbus-daemon binds the socket before it listens, and a connect in between is refused:
        // ready is when a client gets through, not when the file exists.
        for _ in 0..<500 {
            if FileManager.default.fileExists(atPath: socket), let probe = try? await BusConnection.open(address: address) {
                await probe.close()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        stop()
        throw Failure.didNotListen(address)
    }

    /// Kills the daemon and removes its directory. It does not wait for the exit (Foundation
    /// reaps the child): a wait here would block the cooperative thread of a `defer`.
    public func stop() {
        // dbus-daemon --nofork outside systemd ignores SIGTERM, so it is killed outright.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a fresh daemon, stopping it afterwards whatever happens.
    public static func with<T>(_ body: (PrivateBusDaemon) async throws -> T) async throws -> T {
        let daemon = try await PrivateBusDaemon()
        defer { daemon.stop() }
        return try await body(daemon)
    }

    /// Runs a command line tool (busctl, dbus-send) to its end without blocking a cooperative
    /// thread. Returns its exit status and its stdout and stderr together.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await Program.run(executable, arguments, mergingErrors: true)
        return (result.status, result.stdout)
    }
}
