/// The desktop's top-level windows at one moment, as a focus source read them.
public struct DesktopSnapshot: Sendable, Hashable {
    /// In the order the source lists them (`_NET_CLIENT_LIST`, or the tree's depth-first order).
    public var windows: [DesktopWindow]

    public init(windows: [DesktopWindow]) {
        self.windows = windows
    }

    /// The focused window, if any window has the focus.
    public var focused: DesktopWindow? { windows.first { $0.isFocused } }

    /// The windows of `pid`.
    public func windows(of pid: Int32) -> [DesktopWindow] { windows.filter { $0.pid == pid } }
}
