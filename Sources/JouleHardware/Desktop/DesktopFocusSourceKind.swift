/// Which focus source a session has, from its environment: sway's IPC when `SWAYSOCK` is set
/// (sway sets DISPLAY too, for Xwayland, but only its tree holds the Wayland windows), else
/// X11 when `DISPLAY` is set, i3 included: i3's tree names no pid (only the X11 window), while
/// its EWMH properties and XRes do, so a window maps to its app. i3's IPC (`I3SOCK`) without
/// a display is the last choice.
public enum DesktopFocusSourceKind: Sendable, Hashable {
    case ipc(socketPath: String)
    case x11(display: String)

    public static func choose(environment: [String: String]) throws(DesktopFocusError) -> DesktopFocusSourceKind {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let path = value("SWAYSOCK") { return .ipc(socketPath: path) }
        if let display = value("DISPLAY") { return .x11(display: display) }
        if let path = value("I3SOCK") { return .ipc(socketPath: path) }
        throw .noSource
    }

    /// Connects and starts the source (blocks until it is subscribed: a few milliseconds).
    public func open() throws(DesktopFocusError) -> any DesktopFocusSource {
        switch self {
        case .ipc(let path): try I3IPCFocusSource(socketPath: path)
        case .x11(let display): try X11FocusSource(display: display)
        }
    }
}
