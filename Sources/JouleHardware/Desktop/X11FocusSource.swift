/// The focus on an X11 display, from its EWMH window manager: `_NET_ACTIVE_WINDOW`,
/// `_NET_CLIENT_LIST`, each client's `_NET_WM_PID` (else XRes's pid of its connection),
/// `_NET_WM_STATE_HIDDEN` and `_NET_WM_DESKTOP` against `_NET_CURRENT_DESKTOP`.
///
/// Event-driven: a thread of its own sleeps in poll(2) on the X connection until a
/// PropertyNotify (on the root window or a client) says one of those changed; the xcb
/// connection never leaves that thread (`XCBGateway`).
public final class X11FocusSource: DesktopFocusSource {
    public let origin: String
    public let snapshots: AsyncThrowingStream<DesktopSnapshot, any Error>
    private let thread: StoppableThread
    private let pollReturns = WakeupCounter()

    /// How often the thread has woken for the X connection: flat while nothing changes.
    public var wakeups: Int { pollReturns.value }

    /// Connects to `display` (`:1`) and returns once PropertyNotify is selected on the root
    /// window; throws when the display cannot be reached or no EWMH window manager runs.
    public init(display: String) throws(DesktopFocusError) {
        origin = display
        let started = try DesktopFocusThread.start(
            name: "joule-x11-focus", counter: pollReturns,
            loop: { stopFD, onWake, ready, onSnapshot throws(HardwareError) in
                try XCBGateway.runFocusLoop(display: display, stopFD: stopFD, onWake: onWake, ready: ready, onSnapshot: onSnapshot)
            },
            describe: { Self.error($0, display: display) })
        thread = started.thread
        snapshots = started.snapshots
    }

    public func stop() { thread.stop() }

    static func error(_ error: HardwareError, display: String) -> DesktopFocusError {
        .x11(display: display, reason: DesktopFocusThread.reason(error))
    }
}
