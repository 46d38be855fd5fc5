#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleHardware

/// Builds the report of one violation from what the monitor measured (the window's usage and
/// each thread's) and what the process inspector reads about the process while it still
/// exists (wait channels, kernel stacks, executable, parent, owner).
package struct ResourceReportBuilder: Sendable {
    /// One thread as last sampled, with its CPU time inside the window (nil until measured).
    package struct ThreadSample: Sendable {
        package var stat: ProcessStat
        package var cpuSeconds: Double?

        package init(stat: ProcessStat, cpuSeconds: Double?) {
            self.stat = stat
            self.cpuSeconds = cpuSeconds
        }
    }

    package let inspector: ProcessInspector
    package let system: SystemIdentity
    package let configuration: CPUMonitorConfiguration

    package init(inspector: ProcessInspector, system: SystemIdentity, configuration: CPUMonitorConfiguration) {
        self.inspector = inspector
        self.system = system
        self.configuration = configuration
    }

    /// Reports list at most this many threads.
    package static var threadLimit: Int { 256 }

    package func report(
        _ identity: ProcessIdentity, facts: ProcessFacts?, threads samples: [ThreadSample], usage: WindowUsage, time: Double,
        fatal: Bool, actionTaken: String, terminationReason: String?
    ) -> ResourceReport {
        let pid = identity.pid
        let samples = Array(samples.prefix(Self.threadLimit))
        var threads = samples.map { sample in
            ReportThread(
                tid: sample.stat.pid, name: sample.stat.comm, state: sample.stat.state.name, cpuSeconds: sample.cpuSeconds,
                wchan: inspector.wchan(pid, thread: sample.stat.pid), kernelStack: inspector.kernelStack(pid, thread: sample.stat.pid),
                heaviest: false)
        }
        // The heaviest thread used the most CPU in the window; lifetime ticks break ties.
        let heaviest = samples.indices.max { a, b in
            let (x, y) = (samples[a].cpuSeconds ?? -1, samples[b].cpuSeconds ?? -1)
            if x != y { return x < y }
            return samples[a].stat.cpuTicks < samples[b].stat.cpuTicks
        }
        if let heaviest { threads[heaviest].heaviest = true }
        let ppid = facts?.ppid ?? 0
        return ResourceReport(
            timestamp: Date(timeIntervalSince1970: time), processName: facts?.name ?? "pid \(pid)", pid: pid,
            processStartTimeTicks: identity.startTimeTicks, path: inspector.executablePath(pid),
            commandLine: facts?.commandLine ?? inspector.commandLine(pid),
            parentName: inspector.name(ppid), parentPid: ppid, uid: facts?.uid,
            userName: facts?.uid.flatMap { inspector.userName(uid: $0) },
            cgroup: facts?.cgroup, osVersion: system.osVersion, hardwareModel: system.hardwareModel, fatal: fatal,
            limitPercent: configuration.limitPercent, windowSeconds: configuration.window.inSeconds,
            cpuSeconds: usage.cpuSeconds, observedSeconds: usage.observedSeconds,
            action: configuration.action.rawValue, dryRun: configuration.dryRun, actionTaken: actionTaken,
            terminationReason: terminationReason, threads: threads)
    }
}
