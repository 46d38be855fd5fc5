import CSystemd

/// libsystemd's sd-daemon calls: the service manager's notification socket and watchdog.
enum SdDaemonGateway {
    /// sd_notify(3): > 0 sent, 0 when not run by a service manager ($NOTIFY_SOCKET unset), < 0
    /// a negative errno.
    static func notify(_ state: String) -> Int32 {
        sd_notify(0, state)
    }

    /// sd_watchdog_enabled(3): the interval the manager expects pings within, or nil when no
    /// watchdog is set for this process.
    static func watchdogMicroseconds() -> UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 && usec > 0 ? usec : nil
    }
}
