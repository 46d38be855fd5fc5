import Foundation
import JouleWire
import JouleHardware
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The foreground follows the focused window, end to end: Xvfb with openbox, joule daemon on a
/// private bus, an app under `joule run` whose X11 window is its child, another window of no
/// app, and `joule session` watching the display. Focus moves with xdotool; the app hears its
/// lifecycle events in order, is suspended once minimised past its grace, and thawed when
/// activated again. The X server dying is said in the agent's log, and leaves nothing frozen.
@Suite(.serialized, .enabled("needs Xvfb, openbox, xdotool, x11-utils, python3-xlib: run scripts/install-deps.sh (CI requires them)") {
    X11Rig.shouldRun
})
struct SessionFocusTests {
    static let windowScript = CLIHarness.packageRoot.appendingPathComponent("Tests/Support/x11_window.py").path

    /// The window ids named `name` on the rig's display.
    static func windows(_ rig: X11Rig, _ name: String) async throws -> [String] {
        let result = try await Program.run("/usr/bin/xdotool", ["search", "--name", "^\(name)$"], environment: rig.environment, timeout: 30)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func theFocusedWindowDrivesTheAppsLifecycle() async throws {
        let rig = try await X11Rig()
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let display = try #require(rig.environment["DISPLAY"])
        let run = try AppRunHarness(
            runOptions: ["--grace", "0.3"], extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address, "DISPLAY": display],
            window: (Self.windowScript, "editor"))
        guard await run.waitReady() else { return }
        let other = try await rig.openWindow("other")
        #expect(try await eventually { try await !Self.windows(rig, "editor").isEmpty }, "the app's window is mapped")
        let editor = try #require(try await Self.windows(rig, "editor").first)
        try await rig.xdotool(["windowactivate", "--sync", editor])

        // joule session, on the same private bus, as the session's agent.
        let agent = try SessionAgentHarness(directory: run.directory, bus: daemon.bus.address, focus: ["DISPLAY": display])
        #expect(try await eventually { agent.log.contains("following the focus on \(display)") }, "\(agent.log)")

        // Another window takes the focus: the app is visible but not focused.
        try await rig.xdotool(["windowactivate", "--sync", String(other.id)])
        await run.wait(20, "willResignActive") { run.heardEvents == ["willResignActive"] }
        #expect(await run.state() == "inactive")

        // Minimised: the background, then suspended after its grace.
        try await rig.xdotool(["windowminimize", "--sync", editor])
        await run.wait(20, "didEnterBackground") { run.heardEvents == ["willResignActive", "didEnterBackground"] }
        await run.wait(30, "suspended") { await run.state() == "suspended" }
        #expect(run.processState() == "T" || run.processState() == "S", "frozen or stopped")

        // Activated again: thawed, in the foreground.
        try await rig.xdotool(["windowactivate", editor])
        await run.wait(30, "didBecomeActive") { run.heardEvents.suffix(2) == ["willEnterForeground", "didBecomeActive"] }
        #expect(run.heardEvents == ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"], "\(run.heardEvents)")
        #expect(await run.state() == "active")
        #expect(run.processState() != "T")

        #expect(await agent.terminate() == 0, "\(agent.log)")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    /// As under sway (SessionSwayFocusTests): the display gone while the app is suspended.
    @Test func theXServerDyingIsSaidAndLeavesNothingFrozen() async throws {
        let rig = try await X11Rig()
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let display = rig.display
        let run = try AppRunHarness(
            runOptions: ["--grace", "0.3"], extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address, "DISPLAY": display],
            window: (Self.windowScript, "editor"))
        guard await run.waitReady() else { return }
        _ = try await rig.openWindow("other")
        #expect(try await eventually { try await !Self.windows(rig, "editor").isEmpty }, "the app's window is mapped")
        let editor = try #require(try await Self.windows(rig, "editor").first)
        let agent = try SessionAgentHarness(directory: run.directory, bus: daemon.bus.address, focus: ["DISPLAY": display])
        #expect(try await eventually { agent.log.contains("following the focus on \(display)") }, "\(agent.log)")
        try await rig.xdotool(["windowminimize", "--sync", editor])
        await run.wait(60, "didEnterBackground") { run.heardEvents == ["willResignActive", "didEnterBackground"] }
        await run.wait(60, "suspended") { await run.state() == "suspended" }

        await rig.killServer()
        let said = "session: the focus source ended: X11 display \(display): connection: connection failed or broke (the X server went away?)"
        #expect(await eventually(timeout: 60) { agent.log.contains(said) }, "\(agent.log)")
        #expect(await eventually(timeout: 60) { agent.log.contains("session: no focus to follow: \(run.name) back in the foreground") },
                "\(agent.log)")
        await run.wait(60, "didBecomeActive") {
            run.heardEvents == ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"]
        }
        #expect(await run.state() == "active")
        #expect(run.processState() != "T")
        #expect(agent.isRunning, "\(agent.log)")

        #expect(await agent.terminate() == 0, "\(agent.log)")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }
}
