/// What the process side must do for a machine's decision, in the order given.
package enum AppLifecycleAction: Sendable, Hashable {
    /// Write the event line, and send the app its message if it hears this event.
    case notify(AppLifecycleNotice)
    /// `cgroup.freeze` 1, then watch `cgroup.events` for `frozen 1` (`AppSuspension.cgroupFreezer`).
    case freeze
    /// `cgroup.freeze` 0.
    case thaw
    /// SIGSTOP to every process of the app's tree, then watch for all of them stopped
    /// (`AppSuspension.stopSignals`).
    case stopTree
    /// SIGCONT to every process of the app's tree.
    case continueTree
    /// SIGTERM to the app (its main process; the whole tree when there is no cgroup).
    case sigterm
    /// SIGKILL to every process of the app's tree (`AppSuspension.stopSignals`).
    case sigkill
    /// `cgroup.kill` 1 (`AppSuspension.cgroupFreezer`).
    case cgroupKill
    /// Put this on record (a resource report, a log line).
    case report(AppLifecycleReport)
}
