import JouleHardware
import JouleTesting
import JouleWire
import Testing

@testable import JouleApps

/// The mapping over snapshots from real desktops: Xvfb + openbox moved with xdotool, and
/// headless sway moved with swaymsg (the rigs of JouleTesting).
@Suite struct DesktopAppStatesLiveTests {
    /// The latest snapshot of `source`, as a task reads it.
    final class Latest: Sendable {
        let snapshot = Locked<DesktopSnapshot?>(nil)
        let task: Task<Void, Never>

        init(_ source: any DesktopFocusSource) {
            let snapshot = self.snapshot
            task = Task {
                do {
                    for try await next in source.snapshots { snapshot.withLock { $0 = next } }
                } catch {}
            }
        }

        deinit { task.cancel() }

        /// Whether the states come to be `expected` (`locked`: for a locked or idle session).
        func states(_ expected: [Int32: AppLifecycleState], locked: Bool = false) async -> Bool {
            await eventually {
                snapshot.withLock { $0 }.map { DesktopAppStates.states(of: $0, sessionLockedOrIdle: locked) == expected } ?? false
            }
        }
    }

    @Test(.enabled("needs Xvfb, openbox, xdotool, x11-utils, python3-xlib: run scripts/install-deps.sh") { X11Rig.shouldRun })
    func x11() async throws {
        let rig = try await X11Rig()
        let editor = try await rig.openWindow("editor")
        // Two windows of one process would need a second client library; two pids stand for two apps.
        let browser = try await rig.openWindow("browser", setsPID: false)
        let source = try X11FocusSource(display: rig.display)
        defer { source.stop() }
        let latest = Latest(source)
        #expect(await latest.states([editor.pid: .inactive, browser.pid: .active]))
        #expect(await latest.states([editor.pid: .inactive, browser.pid: .inactive], locked: true))
        try await rig.xdotool(["windowactivate", String(editor.id)])
        #expect(await latest.states([editor.pid: .active, browser.pid: .inactive]))
        try await rig.xdotool(["windowminimize", String(browser.id)])
        #expect(await latest.states([editor.pid: .active, browser.pid: .background]))
        try await rig.xdotool(["set_desktop", "2"])
        #expect(await latest.states([editor.pid: .background, browser.pid: .background]))
    }

    /// i3 (`I3SOCK` and `DISPLAY` set, as i3 sets them): the session's source is X11, whose
    /// EWMH properties name the pids i3's tree lacks; i3-msg moves focus, workspaces and the
    /// scratchpad.
    @Test(.enabled("needs Xvfb, i3, xdotool, x11-utils, python3-xlib: run scripts/install-deps.sh") { X11Rig.shouldRunI3 })
    func i3() async throws {
        let rig = try await X11Rig(manager: .i3)
        let socket = try #require(rig.i3Socket)
        let kind = try DesktopFocusSourceKind.choose(environment: ["I3SOCK": socket, "DISPLAY": rig.display])
        #expect(kind == .x11(display: rig.display))
        let editor = try await rig.openWindow("editor")
        let browser = try await rig.openWindow("browser", setsPID: false)
        let source = try kind.open()
        defer { source.stop() }
        let latest = Latest(source)
        // Tiled side by side on workspace 1; i3 focuses the newest.
        #expect(await latest.states([editor.pid: .inactive, browser.pid: .active]))
        try await rig.i3msg("[id=\(editor.id)] focus")
        #expect(await latest.states([editor.pid: .active, browser.pid: .inactive]))
        try await rig.i3msg("[id=\(browser.id)] move container to workspace 2")
        #expect(await latest.states([editor.pid: .active, browser.pid: .background]))
        try await rig.i3msg("[id=\(editor.id)] move scratchpad")
        #expect(await latest.states([editor.pid: .background, browser.pid: .background]))
        try await rig.i3msg("workspace 2")
        #expect(await latest.states([editor.pid: .background, browser.pid: .active]))
    }

    @Test(.enabled("needs sway, foot: run scripts/install-deps.sh") { SwayRig.shouldRun })
    func sway() async throws {
        let rig = try await SwayRig()
        let editor = try await rig.launch("editor")
        let browser = try await rig.launch("browser")
        let source = try I3IPCFocusSource(socketPath: rig.socket)
        defer { source.stop() }
        let latest = Latest(source)
        #expect(await latest.states([editor.pid: .inactive, browser.pid: .active]))
        try await rig.swaymsg(["[pid=\(editor.pid)] focus"])
        #expect(await latest.states([editor.pid: .active, browser.pid: .inactive]))
        #expect(await latest.states([editor.pid: .inactive, browser.pid: .inactive], locked: true))
        try await rig.swaymsg(["[pid=\(browser.pid)] move scratchpad"])
        #expect(await latest.states([editor.pid: .active, browser.pid: .background]))
        try await rig.swaymsg(["workspace 3"])
        #expect(await latest.states([editor.pid: .background, browser.pid: .background]))
    }
}
