/// What the CPU monitor does to a process that exceeds its budget.
public enum CPUMonitorAction: String, Sendable, CaseIterable {
    /// SIGKILL through a pidfd, as iOS's CPU_FATAL.
    case kill
    /// Hold it to the limit: cgroup v2 `cpu.max`, or SIGSTOP/SIGCONT duty cycling.
    case throttle
    /// Leave it alone; write a non-fatal report.
    case report
}
