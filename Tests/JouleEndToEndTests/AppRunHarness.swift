import Foundation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One `joule run` of the test app (Tests/Support/lifecycle_test_app.py) in runtime and state
/// directories of its own, with the app's log read back as JSON objects. Waits are bounds
/// against hanging, never assertions about speed.
final class AppRunHarness: @unchecked Sendable {
    let name: String
    let directory: String
    let logPath: String
    let environment: [String: String]
    private let process = Process()
    private let stderrPath: String

    static let testApp = CLIHarness.packageRoot.appendingPathComponent("Tests/Support/lifecycle_test_app.py").path

    /// `runOptions` go to joule run; `appOptions` to the test app (or `command` replaces it).
    /// `window` (a script and a window name) starts an X11 window as the app's child first, so
    /// the window's pid is in the app's process tree (and cgroup); `child` starts any command
    /// there instead (a Wayland client, say).
    init(
        runOptions: [String] = [], appOptions: [String] = [], command: [String]? = nil, extraEnvironment: [String: String] = [:],
        window: (script: String, name: String)? = nil, child: [String]? = nil
    ) throws {
        name = "t" + UUID().uuidString.prefix(8).lowercased()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("joule-app-\(name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logPath = directory + "/app.log"
        stderrPath = directory + "/stderr"
        var environment = ["JOULE_RUNTIME_DIR": directory + "/run", "JOULE_STATE_DIR": directory + "/state",
                           "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"]
        environment.merge(extraEnvironment) { _, new in new }
        self.environment = environment
        process.executableURL = CLIHarness.binary
        var app = command ?? ["/usr/bin/python3", Self.testApp, "--log", logPath] + appOptions
        if let child = child ?? window.map({ ["/usr/bin/python3", $0.script, $0.name] }) {
            // The shell starts the window, then becomes the app: the window is the app's child.
            let quoted = child.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            app = ["/bin/sh", "-c", quoted + " >/dev/null & exec \"$@\"", "sh"] + app
        }
        process.arguments = ["run", "--name", name] + runOptions + ["--"] + app
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        if let pid = appPID { kill(pid, SIGCONT); kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The test app's log lines so far.
    var log: [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// The events the app heard, in order.
    var heardEvents: [String] { log.compactMap { ($0["heard"] as? [String: Any])?["event"] as? String } }

    var appPID: Int32? { (log.first { $0["ready"] != nil }?["pid"] as? Int).map(Int32.init) }

    /// Waits (polling every 50 ms with Task.sleep, up to `timeout` s) until `condition` holds.
    @discardableResult
    func wait(_ timeout: Double = 20, _ what: String, _ condition: () async -> Bool) async -> Bool {
        if await eventually(timeout: timeout, every: .milliseconds(50), condition) { return true }
        Issue.record("timed out waiting for \(what); stderr: \(stderr); log: \(log)")
        return false
    }

    func waitReady() async -> Bool { await wait(30, "the app to start") { appPID != nil } }

    /// `joule app ARGS` with this run's directories.
    func app(_ arguments: [String]) async throws -> CLIHarness.Result {
        try await CLIHarness.run(["app"] + arguments, environment: environment)
    }

    func move(_ request: String) async throws {
        let result = try await app([request, name])
        #expect(result.status == 0, "joule app \(request): \(result.stderr)")
    }

    /// This app's entry in `joule app list --json`.
    func entry() async throws -> [String: Any]? {
        let result = try await app(["list", "--json"])
        return result.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.first { $0["app"] as? String == name }
    }

    func state() async -> String? { (try? await entry())??["state"] as? String }

    /// The scheduler state letter of the app's process (`T` when stopped), nil once gone.
    func processState() -> String? { appPID.flatMap(Self.processState(of:)) }

    /// The scheduler state letter of `pid` (`T` when stopped), nil once gone.
    static func processState(of pid: Int32) -> String? { statFields(pid)?.first }

    /// The parent of `pid`, nil once gone.
    static func parent(of pid: Int32) -> Int32? { statFields(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil } }

    /// The fields of /proc/PID/stat after the command's name, from the state on.
    private static func statFields(_ pid: Int32) -> [String]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").map(String.init)
    }

    /// utime + stime of the app's process, in clock ticks.
    func cpuTicks() -> Int? {
        guard let pid = appPID, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    var hasExited: Bool { !process.isRunning }

    /// joule run's exit status, waiting up to `timeout` s (then SIGKILL and nil).
    func exitStatus(timeout: Double = 20) async -> Int32? {
        guard await wait(timeout, "joule run to exit", { !process.isRunning }) else {
            await process.end(SIGKILL)
            return nil
        }
        return process.terminationStatus
    }

    func signalJoule(_ signal: Int32) { kill(process.processIdentifier, signal) }
}
