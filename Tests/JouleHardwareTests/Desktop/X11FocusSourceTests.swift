import JouleHardware
import JouleTesting
import Testing

/// Against Xvfb, openbox and python3-xlib windows, moved with xdotool.
@Suite(.enabled("needs Xvfb, openbox, xdotool, x11-utils, python3-xlib: run scripts/install-deps.sh (CI requires them)") {
    X11Rig.shouldRun
})
struct X11FocusSourceTests {
    /// (pid, focused, hidden, on the current desktop) of each window, by pid.
    static func view(_ snapshot: DesktopSnapshot) -> [Int32: String] {
        var view: [Int32: String] = [:]
        for window in snapshot.windows {
            guard let pid = window.pid else { continue }
            view[pid] = (window.isFocused ? "F" : "-") + (window.isHidden ? "H" : "-") + (window.isOnCurrentWorkspace ? "C" : "-")
        }
        return view
    }

    @Test func focusMinimiseAndDesktopsFollowOpenbox() async throws {
        let rig = try await X11Rig()
        let alpha = try await rig.openWindow("alpha")
        // No _NET_WM_PID: the pid comes from XRes.
        let beta = try await rig.openWindow("beta", setsPID: false)
        let gamma = try await rig.openWindow("gamma")
        let source = try X11FocusSource(display: rig.display)
        defer { source.stop() }
        #expect(source.origin == rig.display)
        let watch = SnapshotWatch(source)

        // openbox focuses each new window: gamma, the last, has the focus.
        #expect(await watch.until { Self.view($0) == [alpha.pid: "--C", beta.pid: "--C", gamma.pid: "F-C"] }, "\(String(describing: watch.latest))")
        #expect(watch.latest?.windows.map(\.id) == [alpha.id, beta.id, gamma.id])

        try await rig.xdotool(["windowactivate", String(alpha.id)])
        #expect(await watch.until { Self.view($0) == [alpha.pid: "F-C", beta.pid: "--C", gamma.pid: "--C"] }, "\(String(describing: watch.latest))")

        try await rig.xdotool(["windowminimize", String(beta.id)])
        #expect(await watch.until { Self.view($0)[beta.pid] == "-HC" }, "\(String(describing: watch.latest))")

        try await rig.xdotool(["set_desktop_for_window", String(gamma.id), "1"])
        #expect(await watch.until { Self.view($0)[gamma.pid] == "---" }, "\(String(describing: watch.latest))")

        try await rig.xdotool(["set_desktop", "1"])
        #expect(await watch.until { Self.view($0)[gamma.pid]?.hasSuffix("-C") == true && Self.view($0)[alpha.pid] == "---" },
                "\(String(describing: watch.latest))")

        // On every desktop (_NET_WM_DESKTOP 0xFFFFFFFF): on the shown one too.
        try await rig.xdotool(["set_desktop_for_window", String(alpha.id), "-1"])
        #expect(await watch.until { Self.view($0)[alpha.pid] == "--C" }, "\(String(describing: watch.latest))")

        // Idle: no timer, so no wakeup while nothing changes.
        let wakeups = source.wakeups
        #expect(wakeups > 0, "each change above woke it")
        try await Task.sleep(for: .milliseconds(300))
        #expect(source.wakeups == wakeups)

        // The X server dies: the stream ends with an error naming the display.
        let before = watch.count
        await rig.killServer()
        let failure = await watch.failure()
        #expect(failure == .x11(display: rig.display, reason: "connection: connection failed or broke (the X server went away?)"))
        #expect(watch.count == before)
    }

    @Test func aDisplayWithoutAnEWMHWindowManagerIsRefusedByName() async throws {
        let rig = try await X11Rig(windowManager: false)
        #expect {
            try X11FocusSource(display: rig.display)
        } throws: { error in
            guard case .x11(let display, let reason) = error as? DesktopFocusError else { return false }
            return display == rig.display && reason.contains("no EWMH window manager")
        }
    }

    @Test func anUnreachableDisplayIsRefusedByName() {
        #expect {
            try X11FocusSource(display: ":4093")
        } throws: { error in
            guard case .x11(let display, let reason) = error as? DesktopFocusError else { return false }
            return display == ":4093" && reason.hasPrefix("xcb_connect")
        }
    }
}
