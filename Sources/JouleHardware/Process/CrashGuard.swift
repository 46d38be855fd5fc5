/// Signal handlers that undo what this process paused if it dies of a signal it cannot
/// finish cleanly on (a crash, SIGQUIT, SIGUSR1…): every recorded `cgroup.freeze` gets `0`,
/// every recorded stopped PID gets SIGCONT, then the process dies of the original signal.
/// Process control and the freezer record and clear the entries themselves. SIGPIPE is
/// ignored too, so a closed stdout cannot kill a process that holds work paused.
public enum CrashGuard {
    /// Idempotent; call before the first stop or freeze.
    public static func install() { Syscalls.installPauseGuards() }
}
