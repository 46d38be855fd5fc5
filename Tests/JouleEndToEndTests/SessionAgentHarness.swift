import Foundation
import JouleTesting

#if canImport(Glibc)
import Glibc
#endif

/// One `joule session` on a test's private bus (as its system and session bus), in a home of
/// its own under `directory`, with its stderr kept in a file (never a pipe) for assertions.
/// `focus` says which desktop it follows (`DISPLAY`, or `SWAYSOCK`); the other sources'
/// variables are taken out of the environment, so it cannot pick the wrong one.
final class SessionAgentHarness: @unchecked Sendable {
    let logPath: String
    private let process = Process()

    init(directory: String, bus: String, focus: [String: String]) throws {
        let home = directory + "/session-home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "SWAYSOCK", "I3SOCK", "WAYLAND_DISPLAY"] { environment[key] = nil }
        for (key, value) in [
            "DBUS_SYSTEM_BUS_ADDRESS": bus, "DBUS_SESSION_BUS_ADDRESS": bus,
            "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "JOULE_STATE_DIR": home + "/state",
        ] { environment[key] = value }
        environment.merge(focus) { _, new in new }
        process.executableURL = CLIHarness.binary
        process.arguments = ["session"]
        process.environment = environment
        logPath = directory + "/session.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// What it logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    var isRunning: Bool { process.isRunning }

    /// SIGTERM, and its exit status (SIGKILL after 30 s: status 9).
    func terminate() async -> Int32 {
        await process.end(SIGTERM)
    }
}
