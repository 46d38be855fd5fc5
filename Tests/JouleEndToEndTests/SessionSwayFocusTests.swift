import Foundation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The foreground follows the focused window under sway, end to end: a headless sway (run as
/// nobody by SwayRig), joule daemon on a private bus, an app under `joule run` whose Wayland
/// window (foot) is its child, another foot of no app, and `joule session` on sway's IPC
/// socket (SWAYSOCK, no DISPLAY). Focus moves with swaymsg; the app hears its lifecycle events
/// in order, is suspended once sent to the scratchpad or another workspace past its grace,
/// and thawed when focused again. The compositor dying is said in the agent's log, and leaves
/// nothing frozen.
@Suite(.serialized, .enabled("needs sway, foot: run scripts/install-deps.sh (CI requires them)") { SwayRig.shouldRun })
struct SessionSwayFocusTests {
    /// How long each wait may take: a bound against hanging, never a speed asked for. Under
    /// ThreadSanitizer, 4 tests at once on 2 cores, one test of this suite took 90 s.
    static let patience = 60.0

    /// The rig, daemon, app and agent of one test, the app's window focused and the agent
    /// following sway.
    final class Desktop: @unchecked Sendable {
        let rig: SwayRig
        let daemon: DaemonHarness
        let run: AppRunHarness
        /// The app's window: foot, the app's child.
        let editor: Int32
        /// A window of no app: foot, started by sway.
        let other: SwayRig.Window
        let agent: SessionAgentHarness

        init() async throws {
            let rig = try await SwayRig()
            self.rig = rig
            daemon = try await DaemonHarness()
            try await daemon.start()
            var environment = rig.clientEnvironment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = daemon.bus.address
            run = try AppRunHarness(
                runOptions: ["--grace", "0.3"], extraEnvironment: environment,
                child: ["/usr/bin/foot", "--app-id=editor", "--title=editor", "/bin/sleep", "600"])
            guard await run.waitReady() else { throw Failure("the app did not start") }
            var found: Int32?
            _ = await eventually(timeout: SessionSwayFocusTests.patience) {
                found = try? await rig.pid(ofAppID: "editor")
                return found != nil
            }
            guard let editor = found else { throw Failure("the app's foot never showed in sway's tree: \(run.stderr)") }
            self.editor = editor
            other = try await rig.launch("other")
            try await rig.swaymsg(["[pid=\(editor)] focus"])
            agent = try SessionAgentHarness(directory: run.directory, bus: daemon.bus.address, focus: ["SWAYSOCK": rig.socket])
        }

        deinit {
            // A test that failed may leave the app's foot stopped, which sway's end would not
            // end: woken and killed, if that pid is still foot.
            let comm = (try? String(contentsOfFile: "/proc/\(editor)/comm", encoding: .utf8)) ?? ""
            if comm == "foot\n" {
                kill(editor, SIGCONT)
                kill(editor, SIGKILL)
            }
        }

        /// Whether `pid` is suspended: its cgroup frozen, or the process stopped (SIGSTOP).
        static func isSuspended(_ pid: Int32) -> Bool {
            if AppRunHarness.processState(of: pid) == "T" { return true }
            guard let line = ((try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? "")
                .split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else { return false }
            // cgroup v2 alone, or beside v1 (hybrid).
            return ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"].contains { mount in
                let events = (try? String(contentsOfFile: mount + line.dropFirst(3) + "/cgroup.events", encoding: .utf8)) ?? ""
                return events.split(separator: "\n").contains("frozen 1")
            }
        }

        let patience = SessionSwayFocusTests.patience

        /// Whether the agent's log comes to hold `text`.
        func agentSays(_ text: String) async -> Bool {
            await eventually(timeout: patience) { agent.log.contains(text) }
        }

        /// Waits for `expected`, all the events the app heard so far.
        func heard(_ expected: [String]) async {
            await run.wait(patience, expected.last ?? "no event") { run.heardEvents == expected }
        }

        /// Waits until the app is suspended, with its window frozen with it.
        func suspended() async {
            await run.wait(patience, "suspended") { await run.state() == "suspended" }
            #expect(await eventually(timeout: patience) { Self.isSuspended(editor) }, "the window's foot is suspended with the app")
            #expect(run.appPID.map(Self.isSuspended) == true)
        }

        /// Expects the app active and nothing of it suspended.
        func active() async {
            #expect(await run.state() == "active")
            #expect(!Self.isSuspended(editor))
            #expect(run.appPID.map(Self.isSuspended) == false)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func theFocusedWindowDrivesTheAppsLifecycle() async throws {
        let desktop = try await Desktop()
        let (rig, run, agent, editor) = (desktop.rig, desktop.run, desktop.agent, desktop.editor)
        defer { desktop.daemon.end() }
        // The window is the app's own child, so its pid maps to the app.
        #expect(AppRunHarness.parent(of: editor) == run.appPID)
        #expect(await desktop.agentSays("following the focus on \(rig.socket)"), "\(agent.log)")

        // Another window takes the focus: the app is visible but not focused.
        try await rig.swaymsg(["[pid=\(desktop.other.pid)] focus"])
        await desktop.heard(["willResignActive"])
        #expect(await run.state() == "inactive")

        // To the scratchpad (hidden): the background, then suspended after its grace.
        try await rig.swaymsg(["[pid=\(editor)] move scratchpad"])
        await desktop.heard(["willResignActive", "didEnterBackground"])
        await desktop.suspended()

        // Shown and focused again: thawed, in the foreground.
        try await rig.swaymsg(["[pid=\(editor)] scratchpad show"])
        await desktop.heard(["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"])
        await desktop.active()

        // To another workspace while focused: from active straight to the background.
        try await rig.swaymsg(["[pid=\(editor)] move container to workspace 2"])
        let round = ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"]
        await desktop.heard(round + ["willResignActive", "didEnterBackground"])
        await desktop.suspended()

        // Focused there (sway shows workspace 2): thawed, in the foreground.
        try await rig.swaymsg(["[pid=\(editor)] focus"])
        await desktop.heard(round + round)
        await desktop.active()

        #expect(await agent.terminate() == 0, "\(agent.log)")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    @Test func theCompositorDyingIsSaidAndLeavesNothingFrozen() async throws {
        let desktop = try await Desktop()
        let (rig, run, agent, editor) = (desktop.rig, desktop.run, desktop.agent, desktop.editor)
        defer { desktop.daemon.end() }
        #expect(await desktop.agentSays("following the focus on \(rig.socket)"), "\(agent.log)")
        try await rig.swaymsg(["[pid=\(editor)] move scratchpad"])
        await desktop.heard(["willResignActive", "didEnterBackground"])
        await desktop.suspended()

        await rig.kill()
        let said = "session: the focus source ended: sway/i3 IPC at \(rig.socket): read: connection closed (the compositor exited?)"
        #expect(await desktop.agentSays(said), "\(agent.log)")
        #expect(await desktop.agentSays("session: no focus to follow: \(run.name) back in the foreground"), "\(agent.log)")
        // Handed back as it was before the agent: in the foreground, thawed.
        await desktop.heard(["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"])
        #expect(await run.state() == "active")
        #expect(run.appPID.map(Desktop.isSuspended) == false)
        // The agent goes on (Low Power Mode, notifications) without a focus to follow.
        #expect(agent.isRunning, "\(agent.log)")

        #expect(await agent.terminate() == 0, "\(agent.log)")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    @Test func theAgentStoppingLeavesNothingFrozen() async throws {
        let desktop = try await Desktop()
        let (rig, run, agent, editor) = (desktop.rig, desktop.run, desktop.agent, desktop.editor)
        defer { desktop.daemon.end() }
        #expect(await desktop.agentSays("following the focus on \(rig.socket)"), "\(agent.log)")
        try await rig.swaymsg(["[pid=\(editor)] move container to workspace 2"])
        await desktop.heard(["willResignActive", "didEnterBackground"])
        await desktop.suspended()

        // Nothing would move it once the agent is gone: it is handed back before the agent exits.
        #expect(await agent.terminate() == 0, "\(agent.log)")
        #expect(agent.log.contains("session: no focus to follow: \(run.name) back in the foreground"), "\(agent.log)")
        await desktop.heard(["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"])
        await desktop.active()
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }
}
