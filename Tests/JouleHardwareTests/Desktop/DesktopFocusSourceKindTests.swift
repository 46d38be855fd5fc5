import JouleHardware
import Testing

@Suite struct DesktopFocusSourceKindTests {
    @Test func ipcBeforeX11AndAnErrorNamingBoth() throws {
        #expect(try DesktopFocusSourceKind.choose(environment: ["SWAYSOCK": "/run/s", "DISPLAY": ":0"]) == .ipc(socketPath: "/run/s"))
        // i3's tree has no pids; its EWMH properties and XRes do.
        #expect(try DesktopFocusSourceKind.choose(environment: ["I3SOCK": "/run/i", "DISPLAY": ":0"]) == .x11(display: ":0"))
        #expect(try DesktopFocusSourceKind.choose(environment: ["I3SOCK": "/run/i"]) == .ipc(socketPath: "/run/i"))
        #expect(try DesktopFocusSourceKind.choose(environment: ["SWAYSOCK": "", "DISPLAY": ":0"]) == .x11(display: ":0"))
        #expect(throws: DesktopFocusError.noSource) { try DesktopFocusSourceKind.choose(environment: ["WAYLAND_DISPLAY": "wayland-0"]) }
        let text = DesktopFocusError.noSource.description
        #expect(text.contains("SWAYSOCK") && text.contains("I3SOCK") && text.contains("DISPLAY"))
    }
}
