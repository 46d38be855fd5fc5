/// What the session agent hears from the daemon and tells people about.
public enum SessionEvent: Sendable, Hashable {
    /// org.joule.Energy1's `PowerStateDidChange(b, s)`: `battery-low`, `charged`, `manual-on`,
    /// `manual-off`, `override-cleared`, `power-saver-profile`, `power-saver-profile-left`.
    case lowPowerMode(on: Bool, reason: String)
    /// The `WarningLevel` property (`none`, `low`, `critical`, `action`), with `Percentage`
    /// when known.
    case warningLevel(String, percentage: Double?)
    /// `ThermalStateDidChange`'s state: `nominal`, `fair`, `serious`, `critical`.
    case thermalState(String)
    /// The CPU monitor killed a process (Energy1's `CPUMonitorViolation` with action kill).
    case cpuMonitorKill(process: String, reportID: String)
    /// A batch of the user's deferred transfers finished: Transfers1 announces each transfer
    /// (`TransferFinished`), and `TransferBatcher` says when they make a batch.
    case transferBatchFinished(completed: Int, failed: Int)
    /// A sleep drained the battery fast (Energy1's `SleepFlagged`): when it began (Unix
    /// seconds, which tells one sleep from the next) and the daemon's line about it.
    case sleepDrained(start: Double, summary: String)
}
