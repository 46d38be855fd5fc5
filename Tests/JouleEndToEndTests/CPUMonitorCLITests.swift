import Foundation
import JouleWorkloads
import JouleTesting
import Testing

/// `joule cpu-monitor` and `joule reports` against real child processes. These necessarily
/// run in real time: each keeps to a few seconds and never asserts tight timing.
@Suite(.serialized) struct CPUMonitorCLITests {
    static func spawn(_ path: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func busy() throws -> Process { try spawn("/bin/sh", ["-c", "while :; do :; done"]) }
    static func sleeper() throws -> Process { try spawn("/bin/sleep", ["60"]) }

    /// Kills it without waiting (Foundation reaps it), for a `defer` (which cannot await).
    static func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Field 3 (state) and 14+15 (CPU ticks) of /proc/PID/stat, split at the last ')'.
    static func stat(_ pid: Int32) -> (state: String, ticks: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Int(fields[11]), let stime = Int(fields[12]) else { return nil }
        return (String(fields[0]), utime + stime)
    }

    /// The busy child's share of a core over half a second, so the limit can sit below what
    /// this (possibly loaded) machine actually gives it.
    static func share(of pid: Int32) async throws -> Double {
        let before = stat(pid)?.ticks ?? 0
        let start = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(500))
        let after = stat(pid)?.ticks ?? 0
        // The sleep may overrun on a loaded machine: divide by the time that really passed.
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        return Double(after - before) / Double(sysconf(Int32(_SC_CLK_TCK))) / elapsed
    }

    static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("joule-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// No state change seen over a few reads: a process left stopped would show `T` throughout.
    static func isLeftStopped(_ pid: Int32) async throws -> Bool {
        var stoppedReads = 0
        for _ in 0..<5 {
            if stat(pid)?.state == "T" { stoppedReads += 1 }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stoppedReads == 5
    }

    /// Whether the throttle begins (its report appears) within 15 s.
    static func throttling(_ reports: String) async -> Bool {
        await eventually(timeout: 15, every: .milliseconds(100)) {
            ((try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []).contains { $0.hasSuffix(".json") }
        }
    }

    @Test func killsTheBusyProcessLeavesTheSleeperAndWritesAReport() async throws {
        let busy = try Self.busy()
        let sleeper = try Self.sleeper()
        defer { Self.stop(busy); Self.stop(sleeper) }
        let share = try await Self.share(of: busy.processIdentifier)
        // 50 % as the issue asks when the machine gives the loop nearly a core; otherwise a
        // quarter of what it got, since a loop that never exceeds the limit must not be killed
        // and its share swings with whatever else the machine (or the parallel tests) runs.
        let limit = share >= 0.9 ? 50 : max(2, Int(share * 100 / 4))
        let reports = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let result = try await CLIHarness.run([
            "cpu-monitor", "--pid", "\(busy.processIdentifier)", "--pid", "\(sleeper.processIdentifier)",
            "--limit", "\(limit)", "--window", "4", "--action", "kill", "--reports", reports, "--duration", "12",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("EXC_RESOURCE CPU_FATAL sh [\(busy.processIdentifier)]"))
        // Bounded: if the monitor never killed it, the test fails instead of hanging.
        try #require(await eventually { !busy.isRunning }, "the busy loop was not killed")
        #expect(busy.terminationReason == .uncaughtSignal)
        #expect(busy.terminationStatus == SIGKILL)
        #expect(sleeper.isRunning)

        let list = try await CLIHarness.run(["reports", "list", "--json", "--reports", reports])
        #expect(list.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["pid"] as? Int == Int(busy.processIdentifier))
        #expect(entry["exceptionSubtype"] as? String == "CPU_FATAL")
        let message = try #require(entry["exceptionMessage"] as? String)
        #expect(message.wholeMatch(of: try Regex("\\(Limit \(limit)%\\) Observed [0-9]+% over [0-9]+(\\.[0-9])? seconds")) != nil, "\(message)")
        // The engine fires only once the budget is exceeded; the whole-percent figure in the
        // report may round down onto the limit itself (24.4 % against 24 %).
        let observed = try #require(entry["observedPercent"] as? Int)
        #expect(observed >= limit)

        let id = try #require(entry["incidentIdentifier"] as? String)
        let show = try await CLIHarness.run(["reports", "show", String(id.prefix(8)), "--reports", reports])
        #expect(show.status == 0)
        for line in ["Process:             sh [\(busy.processIdentifier)]", "Path:                /usr/bin/dash",
                     "Exception Type:      EXC_RESOURCE", "Exception Subtype:   CPU_FATAL", "Exception Message:   \(message)",
                     "Action Taken:        killed with SIGKILL through a pidfd", "Thread 0 Heaviest:: sh"] {
            #expect(show.stdout.contains(line), "missing \(line)")
        }
        let table = try await CLIHarness.run(["reports", "list", "--reports", reports])
        #expect(table.stdout.contains("CPU_FATAL"))
        #expect(table.stdout.contains("sh [\(busy.processIdentifier)]"))
    }

    @Test func throttleLeavesNothingStoppedAfterExit() async throws {
        let busy = try Self.busy()
        defer { Self.stop(busy) }
        let share = try await Self.share(of: busy.processIdentifier)
        let limit = max(2, min(20, Int(share * 100 / 2)))
        let reports = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let result = try await CLIHarness.run([
            "cpu-monitor", "--pid", "\(busy.processIdentifier)", "--limit", "\(limit)", "--window", "1",
            "--interval", "0.2", "--action", "throttle", "--reports", reports, "--duration", "3",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("EXC_RESOURCE CPU sh [\(busy.processIdentifier)]"))
        #expect(result.stdout.contains("SIGSTOP/SIGCONT duty cycling"))
        #expect(busy.isRunning)
        #expect(try await !Self.isLeftStopped(busy.processIdentifier))
    }

    @Test func throttleLeavesNothingStoppedAfterSIGTERM() async throws {
        let busy = try Self.busy()
        defer { Self.stop(busy) }
        let share = try await Self.share(of: busy.processIdentifier)
        let limit = max(2, min(20, Int(share * 100 / 2)))
        let reports = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let monitor = try Self.spawn(CLIHarness.binary.path, [
            "cpu-monitor", "--pid", "\(busy.processIdentifier)", "--limit", "\(limit)", "--window", "1",
            "--interval", "0.2", "--action", "throttle", "--reports", reports,
        ])
        defer { Self.stop(monitor) }
        // Wait (bounded) for the throttle to begin: its report appears.
        #expect(await Self.throttling(reports))
        try await Task.sleep(for: .milliseconds(300))
        kill(monitor.processIdentifier, SIGTERM)
        let exited = await eventually(timeout: 15, every: .milliseconds(50)) { !monitor.isRunning }
        #expect(exited, "the monitor did not stop on SIGTERM")
        if exited {
            #expect(monitor.terminationReason == .exit)
            #expect(monitor.terminationStatus == 0)
        }
        #expect(busy.isRunning)
        #expect(try await !Self.isLeftStopped(busy.processIdentifier))
    }

    @Test func aMonitorDyingOfAFatalSignalStillContinuesWhatItStopped() async throws {
        let busy = try Self.busy()
        defer { Self.stop(busy) }
        let share = try await Self.share(of: busy.processIdentifier)
        let limit = max(2, min(20, Int(share * 100 / 4)))
        let reports = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: reports) }
        let monitor = try Self.spawn(CLIHarness.binary.path, [
            "cpu-monitor", "--pid", "\(busy.processIdentifier)", "--limit", "\(limit)", "--window", "1",
            "--interval", "0.2", "--action", "throttle", "--reports", reports,
        ])
        defer { Self.stop(monitor) }
        #expect(await Self.throttling(reports))
        // Wait (bounded) until the duty cycle has the process stopped, then kill the monitor
        // with a signal it does not handle gracefully.
        _ = await eventually(timeout: 2, every: .milliseconds(2)) { Self.stat(busy.processIdentifier)?.state == "T" }
        await monitor.end(SIGUSR1)
        #expect(monitor.terminationReason == .uncaughtSignal)
        #expect(busy.isRunning)
        #expect(try await !Self.isLeftStopped(busy.processIdentifier))
    }

    @Test func neverItsOwnParent() async throws {
        let me = ProcessInfo.processInfo.processIdentifier
        let result = try await CLIHarness.run(["cpu-monitor", "--pid", "\(me)", "--limit", "1", "--window", "1", "--duration", "0.5"])
        // Issue 32: with nothing left to watch it says so at once and exits 2, not 0 after the run.
        #expect(result.status == 2)
        #expect(result.stderr.contains("not watched: the monitor's parent is never touched"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func refusals() async throws {
        let pid1 = try await CLIHarness.run(["cpu-monitor", "--pid", "1"])
        #expect(pid1.status == 2)
        #expect(pid1.stderr.contains("refusing --pid 1"))
        let none = try await CLIHarness.run(["cpu-monitor"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("choose what to watch"))
        let regex = try await CLIHarness.run(["cpu-monitor", "--match", "(oops"])
        #expect(regex.status == 2)
        #expect(regex.stderr.contains("--match (oops"))
        let action = try await CLIHarness.run(["cpu-monitor", "--pid", "5", "--action", "explode"])
        #expect(action.status == 2)
        let limit = try await CLIHarness.run(["cpu-monitor", "--pid", "5", "--limit", "-3"])
        #expect(limit.status == 2)
        #expect(limit.stderr.contains("--limit"))
    }

    /// Issue 32: what the user named is checked before anything is watched, with exit 2 and
    /// one line naming it; nothing is left behind.
    @Test func namedTargetsAreCheckedBeforeAnythingRuns() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [([String], String)] = [
            (["--uid", "0", "--reports", file], "joule cpu-monitor: --reports \(file): cannot make the report directory: Not a directory (ENOTDIR)"),
            (["--uid", "0", "--reports=\(file)/sub"], "joule cpu-monitor: --reports \(file)/sub: cannot make the report directory: Not a directory (ENOTDIR)"),
            (["--pid", "999999999"], "joule cpu-monitor: --pid 999999999: no such process"),
            (["--pid=999999999"], "joule cpu-monitor: --pid 999999999: no such process"),
            (["--cgroup", "/joule-no-such-cgroup"],
             "joule cpu-monitor: --cgroup /joule-no-such-cgroup: no such cgroup (no directory under /sys/fs/cgroup, and no process in it)"),
        ]
        for (arguments, line) in cases {
            let result = try await CLIHarness.run(["cpu-monitor"] + arguments + ["--duration", "5"], environment: ["JOULE_STATE_DIR": dir])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").first.map(String.init) == line, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments) started: \(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/reports"))
    }

    /// Issue 32: a short window is worded in tenths, never "over 0 seconds" or a binary fraction.
    @Test func shortWindowsAreWordedInTenths() async throws {
        #expect(ResourceReport.exceptionMessage(limitPercent: 30, cpuSeconds: 0.61, observedSeconds: 0.6) == "(Limit 30%) Observed 102% over 0.6 seconds")
        #expect(ResourceReport.number(30.0 / 100 * 2) == "0.6")
        #expect(ResourceReport.number(12.5) == "12.5")
        #expect(ResourceReport.number(80) == "80")
    }

    @Test func reportsOnAnEmptyOrMissingDirectory() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let list = try await CLIHarness.run(["reports", "list"], environment: ["JOULE_STATE_DIR": dir])
        #expect(list.status == 0)
        #expect(list.stdout.contains("No reports in \(dir)/reports"))
        let json = try await CLIHarness.run(["reports", "list", "--json", "--reports", dir + "/none"])
        #expect(json.stdout == "[]\n")
        let show = try await CLIHarness.run(["reports", "show", "ABCDEF", "--reports", dir])
        #expect(show.status == 2)
        #expect(show.stderr.contains("no report ABCDEF"))
    }
}
