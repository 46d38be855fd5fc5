import JouleWorkloads

/// Something the supervisor must put on record beyond the event line.
package enum AppLifecycleReport: Sendable, Hashable {
    /// The freeze was not confirmed (`cgroup.events` never read `frozen 1`, or a process never
    /// read stopped) within `waitedSeconds`; the app was thawed and left running.
    case freezeNotConfirmed(waitedSeconds: Double)
    /// The app went over its CPU limit in the background and was killed: a `CPU_FATAL`
    /// report as `cpu-monitor` writes it, built by the process side from this usage.
    case cpuFatal(limitPercent: Double, windowSeconds: Double, usage: WindowUsage)

    /// The report's gist in words, for the event line's detail.
    package var summary: String {
        switch self {
        case .freezeNotConfirmed(let waited):
            "freeze not confirmed within \(ResourceReport.number(waited)) seconds; thawed"
        case .cpuFatal(let limit, _, let usage):
            "CPU_FATAL " + ResourceReport.exceptionMessage(
                limitPercent: limit, cpuSeconds: usage.cpuSeconds, observedSeconds: usage.observedSeconds)
        }
    }
}
