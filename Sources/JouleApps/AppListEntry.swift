import JouleWire
import JouleHardware

/// One supervised app in `joule app list --json`:
/// `{"app","pid","state","cgroup","openTasks","backgroundSince","cpuPercent","suspendedCount","killed","source"}`,
/// in that order. Unknown numbers (no pid yet, no CPU sample, not in the background) are null.
package struct AppListEntry: Sendable, Hashable {
    package var app: String
    package var pid: Int32?
    package var state: AppLifecycleState
    /// The app's cgroup path, or nil when it runs under the SIGSTOP fallback.
    package var cgroup: String?
    package var openTasks: Int
    /// When it entered the background (Unix seconds); nil outside it.
    package var backgroundSince: Double?
    /// Its latest CPU use in percent of one core, nil before the first sample.
    package var cpuPercent: Double?
    package var suspendedCount: Int
    package var killed: Bool
    /// `run` (`joule run`) or `scope` (a desktop app the config's `apps:` names).
    package var source: String

    package init(
        app: String, pid: Int32?, state: AppLifecycleState, cgroup: String?, openTasks: Int, backgroundSince: Double?,
        cpuPercent: Double?, suspendedCount: Int, killed: Bool, source: String = "run"
    ) {
        self.source = source
        self.app = app
        self.pid = pid
        self.state = state
        self.cgroup = cgroup
        self.openTasks = openTasks
        self.backgroundSince = backgroundSince
        self.cpuPercent = cpuPercent
        self.suspendedCount = suspendedCount
        self.killed = killed
    }

    /// The entry for an app as its machine stands.
    package init(app: String, pid: Int32?, cgroup: String?, cpuPercent: Double?, machine: AppLifecycleMachine, source: String = "run") {
        self.init(
            app: app, pid: pid, state: machine.state, cgroup: cgroup, openTasks: machine.openTasks.count,
            backgroundSince: machine.backgroundSince, cpuPercent: cpuPercent, suspendedCount: machine.suspendedCount,
            killed: machine.killed, source: source)
    }

    package var json: JSONValue {
        .object([
            "app": .string(app),
            "pid": .from(pid.map(Int.init)),
            "state": .string(state.name),
            "cgroup": .from(cgroup),
            "openTasks": .int(openTasks),
            "backgroundSince": .from(backgroundSince, places: 3),
            "cpuPercent": .from(cpuPercent, places: 1),
            "suspendedCount": .int(suspendedCount),
            "killed": .bool(killed),
            "source": .string(source),
        ])
    }
}
