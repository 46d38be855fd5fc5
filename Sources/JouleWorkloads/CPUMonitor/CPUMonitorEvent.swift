import JouleHardware

/// What the monitor tells its user, one line each.
public enum CPUMonitorEvent: Sendable {
    /// A process matched the selectors and is now watched.
    case watching(ProcessFacts)
    /// A process matched the selectors but a safety rule protects it.
    case protected(ProcessFacts, Protection)
    /// A violation was handled; the report and where it was written (nil if writing failed).
    case violation(ResourceReport, reportPath: String?)
    /// A watched process exited (or its PID was reused) before or while it was handled.
    case exited(ProcessIdentity, name: String)
    /// How a cgroup is throttled, told once, when `cpu.max` could not simply be written: the
    /// `cpu` controller had to be enabled first, or its processes are duty cycled instead.
    case throttling(String)
    /// An action or a report write failed; the monitor carries on.
    case failure(String)
}
