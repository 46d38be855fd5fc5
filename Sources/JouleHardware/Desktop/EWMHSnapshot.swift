/// Builds a `DesktopSnapshot` from EWMH properties as the X server returned them: each a list
/// of format-32 items, nil when the property is missing or not of format 32 (a client may set
/// anything). Pure: `XCBGateway` reads, this decides, and nothing here traps.
public enum EWMHSnapshot {
    /// The root window's properties.
    public struct Root: Sendable, Hashable {
        public var activeWindow: [UInt32]?
        public var clientList: [UInt32]?
        public var currentDesktop: [UInt32]?

        public init(activeWindow: [UInt32]?, clientList: [UInt32]?, currentDesktop: [UInt32]?) {
            self.activeWindow = activeWindow
            self.clientList = clientList
            self.currentDesktop = currentDesktop
        }
    }

    /// One client window's properties, and the pid XRes gave for its connection (nil: not asked or unknown).
    public struct Window: Sendable, Hashable {
        public var wmPID: [UInt32]?
        public var wmState: [UInt32]?
        public var wmDesktop: [UInt32]?
        /// ICCCM's WM_STATE: [state, icon window], state 0 Withdrawn, 1 Normal, 3 Iconic.
        public var icccmState: [UInt32]?
        public var clientPID: Int32?

        public init(wmPID: [UInt32]?, wmState: [UInt32]?, wmDesktop: [UInt32]?, icccmState: [UInt32]? = nil, clientPID: Int32? = nil) {
            self.wmPID = wmPID
            self.wmState = wmState
            self.wmDesktop = wmDesktop
            self.icccmState = icccmState
            self.clientPID = clientPID
        }
    }

    /// `_NET_WM_DESKTOP` of a window shown on every desktop.
    public static let allDesktops: UInt32 = 0xFFFF_FFFF

    /// The snapshot: the windows of `_NET_CLIENT_LIST` in its order (a window missing from
    /// `windows`, gone meanwhile, is left out). `hiddenAtom` is `_NET_WM_STATE_HIDDEN` on this server.
    public static func decode(root: Root, windows: [UInt32: Window], hiddenAtom: UInt32) -> DesktopSnapshot {
        let active = root.activeWindow?.first ?? 0
        let current = root.currentDesktop?.first
        var seen = Set<UInt32>()
        var result: [DesktopWindow] = []
        for id in root.clientList ?? [] where id != 0 && seen.insert(id).inserted {
            guard let window = windows[id] else { continue }
            // Without _NET_CURRENT_DESKTOP or _NET_WM_DESKTOP the window manager has no
            // desktops to speak of: the window is on the one shown.
            let desktop = window.wmDesktop?.first
            let onCurrent = current == nil || desktop == nil || desktop == allDesktops || desktop == current
            result.append(
                DesktopWindow(
                    id: UInt64(id), pid: pid(window), isFocused: id == active,
                    isHidden: window.wmState?.contains(hiddenAtom) == true || unmappedByTheManager(window),
                    isOnCurrentWorkspace: onCurrent))
        }
        return DesktopSnapshot(windows: result)
    }

    /// ICCCM's WM_STATE is Withdrawn while the window is still a client: i3 leaves a window in
    /// its scratchpad so (with _NET_WM_DESKTOP "all desktops", which alone would read as shown
    /// everywhere). Iconic is not taken as hidden: openbox sets it for windows on other
    /// desktops too, and EWMH managers mark a minimised window _NET_WM_STATE_HIDDEN anyway.
    static func unmappedByTheManager(_ window: Window) -> Bool {
        window.icccmState?.first == 0
    }

    /// `_NET_WM_PID` when it is a plausible pid, else what XRes said.
    static func pid(_ window: Window) -> Int32? {
        if let value = window.wmPID?.first, value > 0, value <= UInt32(Int32.max) { return Int32(value) }
        if let pid = window.clientPID, pid > 0 { return pid }
        return nil
    }
}
