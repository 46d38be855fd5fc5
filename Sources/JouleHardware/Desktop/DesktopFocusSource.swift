/// Where the desktop's windows and focus come from, event-driven: the X server (EWMH) or the
/// sway/i3 IPC socket. Each source sends a snapshot when it starts and one after each change
/// that alters it; the stream ends with a `DesktopFocusError` naming the display or socket
/// when the connection dies, and without error after `stop()`.
public protocol DesktopFocusSource: AnyObject, Sendable {
    /// The display (`:1`) or the socket path, for logs.
    var origin: String { get }
    /// One consumer. Older snapshots are dropped for newer ones when the consumer lags.
    var snapshots: AsyncThrowingStream<DesktopSnapshot, any Error> { get }
    /// Ends the source's thread and the stream. Safe to call more than once.
    func stop()
}
