/// One top-level window as the window manager or compositor describes it, as a value.
public struct DesktopWindow: Sendable, Hashable {
    /// The window's id where it was read: the X11 window, or the sway/i3 container id.
    public var id: UInt64
    /// The process that owns it; nil when neither the window nor the server says.
    public var pid: Int32?
    /// It has the input focus (`_NET_ACTIVE_WINDOW`, or `focused` in the i3/sway tree).
    public var isFocused: Bool
    /// Minimised (`_NET_WM_STATE_HIDDEN`) or in sway/i3's scratchpad.
    public var isHidden: Bool
    /// On the desktop or workspace shown now (or on all of them).
    public var isOnCurrentWorkspace: Bool

    public init(id: UInt64, pid: Int32?, isFocused: Bool, isHidden: Bool, isOnCurrentWorkspace: Bool) {
        self.id = id
        self.pid = pid
        self.isFocused = isFocused
        self.isHidden = isHidden
        self.isOnCurrentWorkspace = isOnCurrentWorkspace
    }

    /// Someone looking at the screen could see it (not minimised, on the shown workspace).
    public var isVisible: Bool { !isHidden && isOnCurrentWorkspace }
}
