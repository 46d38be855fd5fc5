@testable import JouleHardware
@testable import JouleWorkloads
@testable import JouleApps
import Testing

/// The `joule app events` line and the `joule app list` object, keys in the issue's order.
@Suite struct AppJSONObjectTests {
    @Test func anEventLineHasItsKeysInOrder() {
        let notice = AppLifecycleNotice(event: .killed, state: .background, detail: "CPU_FATAL (Limit 80%) Observed 89% over 60 seconds", time: 1_700_000_000.1234)
        #expect(AppEventLine(app: "player", pid: 4242, notice: notice).json.serialized
            == #"{"timestamp":1700000000.123,"app":"player","pid":4242,"event":"killed","state":"background","detail":"CPU_FATAL (Limit 80%) Observed 89% over 60 seconds"}"#)
    }

    @Test func anEventLineWritesUnknownsAsNull() {
        let notice = AppLifecycleNotice(event: .didBecomeActive, state: .active, time: 1_700_000_000)
        #expect(AppEventLine(app: "a", pid: nil, notice: notice).json.serialized
            == #"{"timestamp":1700000000,"app":"a","pid":null,"event":"didBecomeActive","state":"active","detail":null}"#)
    }

    @Test func aListEntryHasItsKeysInOrderAndNullForUnknownNumbers() {
        let fresh = AppListEntry(app: "editor", pid: 17, cgroup: nil, cpuPercent: nil, machine: AppLifecycleMachine())
        #expect(fresh.json.serialized
            == #"{"app":"editor","pid":17,"state":"active","cgroup":null,"openTasks":0,"backgroundSince":null,"cpuPercent":null,"suspendedCount":0,"killed":false,"source":"run"}"#)
    }

    @Test func aListEntryFollowsItsMachine() {
        var machine = AppLifecycleMachine()
        _ = machine.request(.background, at: 1_700_000_000)
        _ = machine.request(.background, at: 1_700_000_001)
        _ = machine.receive(.beginBackgroundTask(name: "sync"), connection: 3, at: 1_700_000_002)
        let entry = AppListEntry(app: "sync-app", pid: 99, cgroup: "/joule.slice/app-sync.scope", cpuPercent: 12.345, machine: machine)
        #expect(entry.json.serialized
            == #"{"app":"sync-app","pid":99,"state":"background","cgroup":"/joule.slice/app-sync.scope","openTasks":1,"backgroundSince":1700000001,"cpuPercent":12.3,"suspendedCount":0,"killed":false,"source":"run"}"#)
    }

    @Test func theCPUFatalDetailIsWordedAsCPUMonitorReportsAreAndNamesTheSubtype() {
        let usage = WindowUsage(cpuSeconds: 48.5, observedSeconds: 50)
        let report = AppLifecycleReport.cpuFatal(limitPercent: 80, windowSeconds: 60, usage: usage)
        #expect(report.summary == "CPU_FATAL " + ResourceReport.exceptionMessage(limitPercent: 80, cpuSeconds: 48.5, observedSeconds: 50))
        #expect(report.summary == "CPU_FATAL (Limit 80%) Observed 97% over 50 seconds")
    }
}
