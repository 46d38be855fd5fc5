import Foundation

/// A real X11 desktop for the focus tests: Xvfb on a display it picks itself (`-displayfd`),
/// openbox (or i3) as the EWMH window manager, and client windows from
/// Tests/Support/x11_window.py (python3-xlib), moved with xdotool (or i3-msg). Every process is ended when the rig goes away.
/// Output goes to files in the scratch directory, never to pipes (an orphan holding a pipe
/// would hang `swift test`).
public final class X11Rig {
    public static let tools = ["/usr/bin/Xvfb", "/usr/bin/openbox", "/usr/bin/xdotool", "/usr/bin/xprop", "/usr/bin/python3"]

    /// What is missing to run the rig (empty: nothing). scripts/install-deps.sh installs it all.
    public static var missing: [String] {
        var missing = tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/Xlib") { missing.append("python3-xlib") }
        return missing
    }

    /// Whether the tests run: always in CI (CI=true), where a missing tool must fail them.
    public static var shouldRun: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || missing.isEmpty }

    /// The window managers a rig can run.
    public enum Manager: Sendable {
        case openbox
        /// i3 with a config of its own (no bar, its IPC socket in the scratch directory).
        case i3
    }

    static let i3Tools = ["/usr/bin/i3", "/usr/bin/i3-msg"]
    /// Whether the i3 tests run: as `shouldRun`, with i3 too.
    public static var shouldRunI3: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || (missing.isEmpty && i3Tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) })
    }
    /// i3's IPC socket (`I3SOCK`), when the rig runs i3.
    public private(set) var i3Socket: String?

    static let windowScript = PackageRoot.url.appendingPathComponent("Tests/Support/x11_window.py").path

    public let scratch: ScratchDirectory
    /// `:N`.
    public let display: String
    private var xvfb: Process?
    private var windowManager: Process?
    private var clients: [Process] = []

    public struct Window: Sendable, Hashable {
        public var name: String
        public var id: UInt64
        /// The client's pid, as the test started it.
        public var pid: Int32
    }

    /// Starts Xvfb, and the window manager (`manager`) unless `windowManager` is false, and
    /// waits until it has set `_NET_SUPPORTING_WM_CHECK` on the root window.
    public init(windowManager: Bool = true, manager: Manager = .openbox) async throws {
        let missing = Self.missing + (manager == .i3 ? Self.i3Tools.filter { !FileManager.default.isExecutableFile(atPath: $0) } : [])
        guard missing.isEmpty else { throw Failure.missing(missing) }
        scratch = try ScratchDirectory(prefix: "joule-x11")
        let out = scratch.path + "/xvfb.out"
        let xvfb = try Self.start(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "800x600x24", "-nolisten", "tcp"], output: out,
            errors: scratch.path + "/xvfb.err", environment: nil)
        self.xvfb = xvfb
        var number: Int?
        let deadline = ContinuousClock.now + .seconds(30)
        while number == nil, ContinuousClock.now < deadline, xvfb.isRunning {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if number == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let number else {
            Self.kill(xvfb)
            throw Failure.didNotStart("Xvfb", (try? String(contentsOfFile: scratch.path + "/xvfb.err", encoding: .utf8)) ?? "")
        }
        display = ":\(number)"
        guard windowManager else { return }
        let name: String, process: Process
        switch manager {
        case .openbox:
            name = "openbox"
            process = try Self.start(
                "/usr/bin/openbox", ["--sm-disable"], output: scratch.path + "/openbox.out", errors: scratch.path + "/openbox.out",
                environment: environment)
        case .i3:
            name = "i3"
            let socket = scratch.path + "/i3.sock", config = scratch.path + "/i3.config"
            // No bar block: no i3bar; `-c` skips the first-run wizard.
            try "# i3 config file (v4)\nfont pango:monospace 8\nipc-socket \(socket)\nfocus_follows_mouse no\nfocus_on_window_activation focus\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            i3Socket = socket
            process = try Self.start(
                "/usr/bin/i3", ["-c", config], output: scratch.path + "/i3.out", errors: scratch.path + "/i3.out", environment: environment)
        }
        self.windowManager = process
        let environment = environment
        let managed = await eventually(timeout: 30) {
            let result = try? await Program.run("/usr/bin/xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"], environment: environment)
            return result?.stdout.contains("window id") == true
        }
        guard managed else {
            throw Failure.didNotStart(name, (try? String(contentsOfFile: scratch.path + "/\(name).out", encoding: .utf8)) ?? "")
        }
    }

    /// Runs i3-msg with `command` on the rig's i3.
    public func i3msg(_ command: String) async throws {
        guard let i3Socket else { throw Failure.command("i3-msg \(command)", "the rig runs no i3") }
        let result = try await Program.run("/usr/bin/i3-msg", ["-s", i3Socket, command], environment: environment, mergingErrors: true, timeout: 30)
        guard result.status == 0, !result.stdout.contains("\"success\":false") else { throw Failure.command("i3-msg \(command)", result.stdout) }
    }

    deinit {
        for process in clients + [windowManager, xvfb].compactMap({ $0 }) { Self.kill(process) }
    }

    /// SIGKILL, not SIGTERM: a child of Foundation's Process may start with SIGTERM blocked
    /// (it spawns from threads that block signals), and Xvfb, sway and python then outlive it.
    public static func kill(_ process: Process) {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// The environment for clients: this process's, with DISPLAY.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        return environment
    }

    /// Opens a window named `name` and waits until it is mapped. `setsPID` false leaves
    /// `_NET_WM_PID` unset, so only XRes knows the pid.
    public func openWindow(_ name: String, setsPID: Bool = true) async throws -> Window {
        let out = scratch.path + "/\(name).out"
        let process = try Self.start(
            "/usr/bin/python3", [Self.windowScript, name] + (setsPID ? [] : ["--no-pid"]), output: out, errors: out,
            environment: environment)
        clients.append(process)
        var id: UInt64?
        let deadline = ContinuousClock.now + .seconds(30)
        while id == nil, ContinuousClock.now < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }) {
                id = UInt64(line.dropFirst(6))
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        guard let id else { throw Failure.didNotStart("x11_window.py \(name)", (try? String(contentsOfFile: out, encoding: .utf8)) ?? "") }
        return Window(name: name, id: id, pid: process.processIdentifier)
    }

    /// Runs xdotool with `arguments` on the rig's display.
    public func xdotool(_ arguments: [String]) async throws {
        let result = try await Program.run("/usr/bin/xdotool", arguments, environment: environment, mergingErrors: true, timeout: 30)
        guard result.status == 0 else { throw Failure.command("xdotool \(arguments.joined(separator: " "))", result.stdout) }
    }

    /// Ends the X server (SIGKILL: gone as from a crash).
    public func killServer() async {
        await xvfb?.end(SIGKILL)
    }

    public enum Failure: Error, CustomStringConvertible {
        case missing([String])
        case didNotStart(String, String)
        case command(String, String)

        public var description: String {
            switch self {
            case .missing(let what): "missing \(what.joined(separator: ", ")) (scripts/install-deps.sh installs them)"
            case .didNotStart(let what, let output): "\(what) did not start within 30 s: \(output)"
            case .command(let what, let output): "\(what) failed: \(output)"
            }
        }
    }

    /// Starts `executable` with its output and errors appended to files (never pipes).
    /// `directory`: the working directory (nil: this process's), which a program run as another
    /// user must be able to enter.
    public static func start(
        _ executable: String, _ arguments: [String], output: String, errors: String, environment: [String: String]?, directory: String? = nil
    ) throws -> Process {
        for path in Set([output, errors]) where !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let err = output == errors ? out : try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        defer {
            try? out.close()
            if output != errors { try? err.close() }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return process
    }
}
