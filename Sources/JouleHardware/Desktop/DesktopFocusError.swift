/// Why a focus source could not start or stopped: always names the display or socket.
public enum DesktopFocusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Neither `SWAYSOCK`/`I3SOCK` nor `DISPLAY` is set.
    case noSource
    /// The X server at `display` could not be reached, or the connection broke.
    case x11(display: String, reason: String)
    /// The sway/i3 IPC socket at `path` failed, closed, or sent something that is not i3-ipc.
    case ipc(path: String, reason: String)

    public var description: String {
        switch self {
        case .noSource:
            "no focus source: neither SWAYSOCK nor I3SOCK (sway/i3 IPC) nor DISPLAY (X11) is set"
        case .x11(let display, let reason): "X11 display \(display): \(reason)"
        case .ipc(let path, let reason): "sway/i3 IPC at \(path): \(reason)"
        }
    }
}
