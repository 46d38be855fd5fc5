@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Foundation
import Testing

@Suite struct ReportStoreTests {
    /// A two-thread process over budget, killed, with a report written into a temp store.
    private func killedReport() async throws -> (ProcTree, ReportStore, [CPUMonitorEvent]) {
        let tree = try ProcTree()
        try tree.addProcess(pid: 100, comm: "worker", ppid: 50, cmdline: ["/usr/bin/worker", "--all"])
        try tree.addProcess(pid: 50, comm: "bash", ppid: 1)
        try tree.write("etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
        try tree.write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n")
        try tree.write("proc/sys/kernel/arch", "x86_64\n")
        try tree.write("sys/class/dmi/id/product_name", "20L5CTO1WW\n")
        try tree.write("etc/passwd", "alice:x:1000:1000::/home/alice:/bin/sh\n")
        try tree.write("proc/100/task/101/wchan", "futex_wait_queue")
        try tree.write("proc/100/task/101/stack", "[<0>] futex_wait_queue+0x5f/0x90\n")
        let store = ReportStore(directory: tree.path + "/state/reports/")
        let clock = JumpingClock()
        let engine = try CPUMonitor(
            configuration: makeConfiguration(limit: 50, window: .seconds(4), selectors: ProcessSelectors(pids: [100])),
            root: tree.path, clock: clock, controller: RecordingProcessController(procRoot: tree.path, cgroupRoot: tree.path), safety: testMonitor,
            store: store, ticksPerSecond: 100)
        var events: [CPUMonitorEvent] = []
        for second in 0...3 {
            let main = UInt64(second) * 80, helper = UInt64(second) * 20
            try tree.update(pid: 100, comm: "worker", ppid: 50, utime: main + helper)
            try tree.write("proc/100/task/100/stat", ProcTree.statLine(pid: 100, comm: "worker", state: "R", ppid: 50, utime: main))
            try tree.write("proc/100/task/101/stat", ProcTree.statLine(pid: 101, comm: "worker io", ppid: 50, utime: helper))
            clock.set(Double(second))
            events += try await engine.step()
        }
        return (tree, store, events)
    }

    @Test func reportHasEveryFieldAndIsListed() async throws {
        let (tree, store, events) = try await killedReport()
        defer { withExtendedLifetime(tree) {} }
        guard case .violation(let report, let path)? = events.first(where: { if case .violation = $0 { true } else { false } }) else {
            Issue.record("no violation")
            return
        }
        let textPath = try #require(path)
        let text = try FileSystem.readText(textPath)
        for line in [
            "Incident Identifier: \(report.incidentIdentifier)",
            "Process:             worker [100]",
            "Command Line:        /usr/bin/worker --all",
            "Parent:              bash [50]",
            "User:                alice (1000)",
            "OS Version:          Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-18-amd64 x86_64)",
            "Hardware Model:      20L5CTO1WW",
            "Exception Type:      EXC_RESOURCE",
            "Exception Subtype:   CPU_FATAL",
            "Exception Message:   (Limit 50%) Observed 100% over 3 seconds",
            "Action Taken:        killed with SIGKILL through a pidfd",
            "CPU:                 3 seconds cpu time over 3 seconds (100% cpu average), exceeding limit of 50% cpu over 4 seconds",
            "Thread 0 Heaviest:: worker  tid 100  running  2.40 s cpu  wchan -",
            "Thread 1:: worker io  tid 101  sleeping  0.60 s cpu  wchan futex_wait_queue",
            "    0  futex_wait_queue+0x5f/0x90",
        ] {
            #expect(text.contains(line + "\n"), "missing: \(line)")
        }
        #expect(!text.contains("NON-FATAL"))
        #expect(text.contains("Termination Reason:  CPU monitor: 3 seconds cpu time over 3 seconds"))

        let listed = try store.list()
        #expect(listed.skipped.isEmpty)
        #expect(listed.reports.count == 1)
        #expect(listed.reports.first?.report == report)
        #expect(listed.reports.first?.textPath == textPath)
        #expect(try store.find(String(report.incidentIdentifier.prefix(6)).lowercased()).report == report)
        #expect(try store.find(report.fileStem).report == report)
        #expect(throws: ReportStoreError.self) { try store.find("nothing-like-this") }
    }

    @Test func jsonSidecarKeysAndNulls() async throws {
        let (tree, store, _) = try await killedReport()
        defer { withExtendedLifetime(tree) {} }
        let stored = try #require(try store.list().reports.first)
        let json = try FileSystem.readText(stored.jsonPath)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["exceptionType"] as? String == "EXC_RESOURCE")
        #expect(object["exceptionSubtype"] as? String == "CPU_FATAL")
        #expect(object["exceptionNote"] is NSNull)
        #expect(object["path"] is NSNull)  // a fixture process has no readable exe link
        #expect(object["observedPercent"] as? Int == 100)
        #expect(object["limitPercent"] as? Int == 50)
        let threads = try #require(object["threads"] as? [[String: Any]])
        #expect(threads.count == 2)
        #expect(threads[0]["heaviest"] as? Bool == true)
        #expect(threads[0]["kernelStack"] is NSNull)
        #expect(threads[1]["kernelStack"] as? [String] == ["futex_wait_queue+0x5f/0x90"])
        #expect(json.hasPrefix("{\"incidentIdentifier\":"))
    }

    @Test func garbageSidecarsAreSkippedWithAReason() throws {
        let tree = try ProcTree()
        let store = ReportStore(directory: tree.path + "/reports")
        #expect(try store.list().reports.isEmpty)  // a missing directory is simply empty
        try tree.write("reports/broken.json", "{\"incidentIdentifier\": 5")
        try tree.write("reports/notes.txt", "hello")
        let listing = try store.list()
        #expect(listing.reports.isEmpty)
        #expect(listing.skipped.count == 1)
        #expect(listing.skipped.first?.contains("broken.json") == true)
    }

    @Test func ambiguousPrefixIsRefused() throws {
        let tree = try ProcTree()
        let store = ReportStore(directory: tree.path + "/reports")
        func report(_ id: String) -> ResourceReport {
            ResourceReport(
                incidentIdentifier: id, timestamp: Date(timeIntervalSince1970: 1_795_000_000), processName: "a b/c",
                pid: 5, processStartTimeTicks: 1, path: nil, commandLine: nil, parentName: nil, parentPid: 1, uid: nil,
                userName: nil, cgroup: nil, osVersion: nil, hardwareModel: nil, fatal: false, limitPercent: 12.5,
                windowSeconds: 60, cpuSeconds: 8, observedSeconds: 20, action: "report", dryRun: false,
                actionTaken: "none", terminationReason: nil, threads: [])
        }
        try store.write(report("AAAA1111-0000-0000-0000-000000000000"))
        try store.write(report("AAAA2222-0000-0000-0000-000000000000"))
        #expect(throws: ReportStoreError.self) { try store.find("AAAA") }
        let one = try store.find("aaaa2")
        #expect(one.report.exceptionMessage == "(Limit 12.5%) Observed 40% over 20 seconds")
        #expect(one.textPath.contains("/a_b_c-"))
        #expect(one.report.text.contains("User:                unknown"))
    }
}
