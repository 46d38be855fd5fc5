import Foundation
import JouleHardware
import JouleTesting
import Testing

/// Against a real headless sway with foot terminals, moved with swaymsg.
@Suite(.enabled("needs sway, foot: run scripts/install-deps.sh (CI requires them)") { SwayRig.shouldRun })
struct I3IPCFocusSourceTests {
    @Test func focusScratchpadAndWorkspacesFollowSway() async throws {
        let rig = try await SwayRig()
        let alpha = try await rig.launch("alpha")
        let beta = try await rig.launch("beta")
        let source = try I3IPCFocusSource(socketPath: rig.socket)
        defer { source.stop() }
        let watch = SnapshotWatch(source)
        let view = X11FocusSourceTests.view
        #expect(await watch.until { view($0)[alpha.pid] != nil && view($0)[beta.pid] != nil }, "\(String(describing: watch.latest))")
        // A window opened after the source started comes as an event.
        let gamma = try await rig.launch("gamma")
        #expect(await watch.until { view($0) == [alpha.pid: "--C", beta.pid: "--C", gamma.pid: "F-C"] }, "\(String(describing: watch.latest))")

        try await rig.swaymsg(["[pid=\(alpha.pid)] focus"])
        #expect(await watch.until { view($0) == [alpha.pid: "F-C", beta.pid: "--C", gamma.pid: "--C"] }, "\(String(describing: watch.latest))")

        try await rig.swaymsg(["[pid=\(beta.pid)] move scratchpad"])
        #expect(await watch.until { view($0)[beta.pid] == "-H-" }, "\(String(describing: watch.latest))")

        try await rig.swaymsg(["[pid=\(gamma.pid)] move container to workspace 2"])
        #expect(await watch.until { view($0)[gamma.pid] == "---" && view($0)[alpha.pid] == "F-C" }, "\(String(describing: watch.latest))")

        try await rig.swaymsg(["workspace 2"])
        #expect(await watch.until { view($0) == [alpha.pid: "---", beta.pid: "-H-", gamma.pid: "F-C"] }, "\(String(describing: watch.latest))")

        // Idle: no timer, so no wakeup while nothing changes.
        let wakeups = source.wakeups
        #expect(wakeups > 0, "each change above woke it")
        try await Task.sleep(for: .milliseconds(300))
        #expect(source.wakeups == wakeups)

        // sway dies: the stream ends with an error naming the socket.
        await rig.kill()
        let failure = await watch.failure()
        guard case .ipc(let path, let reason) = failure else {
            Issue.record("ended with \(String(describing: watch.end))")
            return
        }
        #expect(path == rig.socket)
        #expect(reason.contains("connection closed"))
    }
}

/// Against a misbehaving server on a real Unix socket (Tests/Support/fake_i3_ipc.py).
@Suite struct I3IPCBadPeerTests {
    static let script = PackageRoot.url.appendingPathComponent("Tests/Support/fake_i3_ipc.py").path

    /// Starts the fake in `mode` and waits for its socket.
    static func fake(_ mode: String, in scratch: ScratchDirectory) async throws -> (Process, String) {
        let path = scratch.path + "/ipc.sock"
        let log = scratch.path + "/fake.log"
        let process = try X11Rig.start("/usr/bin/python3", [script, path, mode], output: log, errors: log, environment: nil)
        _ = await eventually { FileManager.default.fileExists(atPath: path) }
        return (process, path)
    }

    @Test(arguments: [
        ("magic", "not i3-ipc"), ("huge", "over the"), ("truncated", "ended inside a message"), ("badjson", "not JSON"),
        ("close", "connection closed"),
    ])
    func badRepliesEndTheStreamNamingTheSocket(mode: String, words: String) async throws {
        let scratch = try ScratchDirectory(prefix: "joule-fake-i3")
        let (process, path) = try await Self.fake(mode, in: scratch)
        defer { X11Rig.kill(process) }
        let source = try I3IPCFocusSource(socketPath: path)
        let watch = SnapshotWatch(source)
        let failure = await watch.failure()
        guard case .ipc(let named, let reason) = failure else {
            Issue.record("\(mode): ended with \(String(describing: watch.end))")
            return
        }
        #expect(named == path)
        #expect(reason.contains(words), "\(reason)")
        #expect(failure?.description.hasPrefix("sway/i3 IPC at \(path): ") == true)
        #expect(watch.count == 0)
    }

    @Test func aRefusedSubscriptionAndAMissingSocketFailInit() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-fake-i3")
        let (process, path) = try await Self.fake("refuse", in: scratch)
        defer { X11Rig.kill(process) }
        #expect(throws: DesktopFocusError.ipc(path: path, reason: #"i3-ipc: SUBSCRIBE refused: {"success":false}"#)) {
            try I3IPCFocusSource(socketPath: path)
        }
        let missing = scratch.path + "/none.sock"
        #expect {
            try I3IPCFocusSource(socketPath: missing)
        } throws: { error in
            guard case .ipc(let path, let reason) = error as? DesktopFocusError else { return false }
            return path == missing && reason.hasPrefix("connect: ") && reason.contains("ENOENT")
        }
    }
}
