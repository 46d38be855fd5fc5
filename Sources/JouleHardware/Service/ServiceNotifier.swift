/// Tells systemd how a `Type=notify` service is doing (sd_notify): `READY=1` once it serves,
/// `STATUS=` lines `systemctl status` shows, `WATCHDOG=1` pings, `RELOADING=1`/`STOPPING=1`.
/// Outside systemd ($NOTIFY_SOCKET unset) every call does nothing.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Whether a service manager listens (sd_notify reached it).
    @discardableResult
    public func notify(_ assignments: [String]) -> Bool {
        SdDaemonGateway.notify(assignments.joined(separator: "\n")) > 0
    }

    public func ready(status: String) { notify(["READY=1", "STATUS=" + status]) }
    public func status(_ text: String) { notify(["STATUS=" + text]) }
    public func reloading() { notify(["RELOADING=1"]) }
    public func stopping() { notify(["STOPPING=1"]) }
    public func watchdog() { notify(["WATCHDOG=1"]) }

    /// How often to ping: half the `WatchdogSec=` the manager set (as systemd advises), or
    /// nil without a watchdog.
    public var watchdogPingInterval: Duration? {
        SdDaemonGateway.watchdogMicroseconds().map { .microseconds(Int64(clamping: $0 / 2)) }
    }
}
