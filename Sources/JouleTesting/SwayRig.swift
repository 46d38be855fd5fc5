import Foundation

/// A real sway, headless (`WLR_BACKENDS=headless`, the pixman renderer, no Xwayland), with foot
/// terminals as its Wayland clients, driven with swaymsg. sway refuses to run as root (it
/// checks that it cannot regain root after dropping it), so as root it runs as nobody, with a
/// runtime directory nobody owns; the tests, as root, may still use its socket.
public final class SwayRig {
    public static let tools = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/foot", "/usr/bin/setpriv"]

    public static var missing: [String] { tools.filter { !FileManager.default.isExecutableFile(atPath: $0) } }

    /// Whether the tests run: always in CI (CI=true), where a missing sway must fail them.
    public static var shouldRun: Bool { ProcessInfo.processInfo.environment["CI"] == "true" || missing.isEmpty }

    public let scratch: ScratchDirectory
    /// sway's IPC socket (what SWAYSOCK would be).
    public let socket: String
    /// sway's Wayland socket, a name in `scratch` (what WAYLAND_DISPLAY would be).
    public let waylandDisplay: String
    private let sway: Process

    public struct Window: Sendable, Hashable {
        public var appID: String
        /// foot's pid, as its shell wrote it before exec'ing foot.
        public var pid: Int32
    }

    public init() async throws {
        guard Self.missing.isEmpty else { throw X11Rig.Failure.missing(Self.missing) }
        scratch = try ScratchDirectory(prefix: "joule-sway")
        let config = scratch.path + "/config"
        try "xwayland disable\noutput HEADLESS-1 resolution 800x600\n".write(toFile: config, atomically: true, encoding: .utf8)
        let launcher = scratch.path + "/launch.sh"
        try "#!/bin/sh\necho $$ > \"$(dirname \"$0\")/$1.pid\"\nexec foot --app-id=\"$1\" sleep 600\n"
            .write(toFile: launcher, atomically: true, encoding: .utf8)
        chmod(launcher, 0o755)
        var arguments = ["-c", config]
        var executable = "/usr/bin/sway"
        if getuid() == 0 {
            chmod(scratch.path, 0o700)
            chown(scratch.path, 65534, 65534)
            executable = "/usr/bin/setpriv"
            arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway"] + arguments
        }
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": scratch.path, "XDG_RUNTIME_DIR": scratch.path, "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "LANG": "C.UTF-8",
        ]
        let log = scratch.path + "/sway.log"
        // In its own directory: as nobody, sway (and the foot it starts, which would fail to
        // enter it) cannot use a working directory under a 0700 checkout.
        sway = try X11Rig.start(executable, arguments, output: log, errors: log, environment: environment, directory: scratch.path)
        var found: (ipc: String, wayland: String)?
        let deadline = ContinuousClock.now + .seconds(30)
        while found == nil, ContinuousClock.now < deadline, sway.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
            // The Wayland socket (wayland-N, beside its .lock) and the IPC socket.
            if let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }),
               let wayland = names.filter({ $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }).min() {
                found = (scratch.path + "/" + ipc, wayland)
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        guard let found else {
            X11Rig.kill(sway)
            throw X11Rig.Failure.didNotStart("sway", (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
        socket = found.ipc
        waylandDisplay = found.wayland
        // The socket exists a moment before sway answers on it.
        guard await eventually(timeout: 30, { (try? await self.swaymsg(["-t", "get_version"])) != nil }) else {
            throw X11Rig.Failure.didNotStart("sway", (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        }
    }

    /// What a Wayland client started outside the rig needs to open its window in this sway
    /// (as root it may use nobody's socket).
    public var clientEnvironment: [String: String] { ["WAYLAND_DISPLAY": waylandDisplay, "XDG_RUNTIME_DIR": scratch.path] }

    deinit {
        // foot exits when its compositor goes.
        X11Rig.kill(sway)
    }

    /// Runs swaymsg against the rig's sway; returns its output.
    @discardableResult
    public func swaymsg(_ arguments: [String]) async throws -> String {
        let result = try await Program.run("/usr/bin/swaymsg", ["-s", socket] + arguments, mergingErrors: true, timeout: 30)
        guard result.status == 0 else { throw X11Rig.Failure.command("swaymsg \(arguments.joined(separator: " "))", result.stdout) }
        return result.stdout
    }

    /// Starts a foot terminal with app id `appID` (through `swaymsg exec`, so sway starts it
    /// as its own client) and waits until its window is in sway's tree.
    public func launch(_ appID: String) async throws -> Window {
        let pidFile = scratch.path + "/\(appID).pid"
        // A script, not a command line: sway splits commands at ";" and expands "$" itself.
        try await swaymsg(["exec", scratch.path + "/launch.sh " + appID])
        var pid: Int32?
        let deadline = ContinuousClock.now + .seconds(30)
        while pid == nil, ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? ""
            if text.hasSuffix("\n") { pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if pid == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let pid else { throw X11Rig.Failure.didNotStart("foot \(appID)", "no pid in \(pidFile)") }
        // Mapped (so in the tree, and focused as the newest window) before the next one starts.
        guard await eventually(timeout: 30, { (try? await self.swaymsg(["-t", "get_tree"]))?.contains("\"pid\": \(pid),") == true })
        else { throw X11Rig.Failure.didNotStart("foot \(appID)", "pid \(pid) never in sway's tree") }
        return Window(appID: appID, pid: pid)
    }

    /// The pid sway's tree gives the window with app id `appID` (nil: no such window yet).
    public func pid(ofAppID appID: String) async throws -> Int32? {
        let tree = try await swaymsg(["-t", "get_tree"])
        func find(_ node: Any) -> Int32? {
            guard let node = node as? [String: Any] else { return nil }
            if node["app_id"] as? String == appID, let pid = node["pid"] as? Int { return Int32(pid) }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [Any] ?? [] { if let pid = find(child) { return pid } }
            }
            return nil
        }
        return find(try JSONSerialization.jsonObject(with: Data(tree.utf8)))
    }

    /// Ends sway (SIGKILL: gone as from a crash).
    public func kill() async {
        await sway.end(SIGKILL)
    }
}
