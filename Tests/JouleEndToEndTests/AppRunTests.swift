import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule run` and `joule app` with real children: the Python test app hears the lifecycle
/// over its socket and logs it; the process is stopped for real (SIGSTOP: this machine's
/// cgroups are v1, so the process-tree fallback is what runs here; the freezer path runs in
/// the VM scenario app-freeze and on a fake tree in AppSupervisorTests).
@Suite struct AppRunTests {
    /// Issue 32: why apps fall back to SIGSTOP is said once, not on every run (even of `true`).
    @Test func theProcessTreeNoticeIsSaidOnce() async throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("joule-rt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        var notices = 0
        for _ in 0..<3 {
            let result = try await CLIHarness.run(
                ["run", "--", "/bin/true"], environment: ["JOULE_RUNTIME_DIR": runtime.path, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent",
                                                         "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
            #expect(result.status == 0, "\(result.stderr)")
            if result.stderr.contains("suspending with SIGSTOP/SIGCONT") { notices += 1 }
        }
        // Once where the machine has no usable cgroup (as here), never where it has.
        #expect(notices <= 1)
        if FileManager.default.fileExists(atPath: runtime.path + "/apps/process-tree-reason") { #expect(notices == 1) }
    }

    @Test func backgroundSuspendsAfterTheGraceAndForegroundThawsInOrder() async throws {
        let run = try AppRunHarness(runOptions: ["--grace", "0.5"], appOptions: ["--busy"])
        guard await run.waitReady() else { return }
        try await run.move("background")
        await run.wait(20, "suspended") { await run.state() == "suspended" }
        #expect(run.processState() == "T")
        #expect(run.heardEvents == ["willResignActive", "didEnterBackground"])
        // A busy loop that is stopped spends no CPU.
        let before = run.cpuTicks()
        try await Task.sleep(for: .microseconds(500_000))
        #expect(run.cpuTicks() == before)
        let entry = try await run.entry()
        #expect(entry?["suspendedCount"] as? Int == 1)
        #expect(entry?["backgroundSince"] is Double)
        try await run.move("foreground")
        await run.wait(20, "foreground events") { run.heardEvents.count == 4 }
        #expect(run.heardEvents == ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"])
        #expect(run.processState() != "T")
        #expect(await run.state() == "active")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
        #expect(run.log.contains { $0["signal"] as? String == "SIGTERM" })
    }

    @Test func anOpenTaskKeepsItRunningUntilTheBudgetThenExpiryComesFiveSecondsEarly() async throws {
        // Budget 14 s: the warning is due 9 s after entering the background; the task is never
        // ended (a leak), so the app is suspended at the end of the budget. The grace (2 s) is
        // what a crowded test machine needs for the app to ask for its task in time, and the
        // budget leaves it time for the `joule app` runs that look at the state past the grace.
        let run = try AppRunHarness(runOptions: ["--grace", "2", "--background-budget", "14"], appOptions: ["--task-on-background"])
        guard await run.waitReady() else { return }
        try await run.move("background")
        await run.wait(20, "the task reply") { run.log.contains { ($0["heard"] as? [String: Any])?["taskId"] as? Int == 1 } }
        // Past the grace period, the task keeps it running.
        try await Task.sleep(for: .milliseconds(2300))
        #expect(run.processState() != "T", "stderr: \(run.stderr); log: \(run.log)")
        let state = await run.state()
        #expect(state == "background", "\(String(describing: state)); stderr: \(run.stderr); log: \(run.log)")
        await run.wait(20, "the expiry warning") { run.heardEvents.contains("backgroundTimeWillExpire") }
        let entered = run.log.first { ($0["heard"] as? [String: Any])?["event"] as? String == "didEnterBackground" }
        let warned = run.log.first { ($0["heard"] as? [String: Any])?["event"] as? String == "backgroundTimeWillExpire" }
        let since = try await run.entry()?["backgroundSince"] as? Double
        let deadline = (warned?["heard"] as? [String: Any])?["deadline"] as? Double
        if let since, let deadline { #expect(abs(deadline - since - 14) < 0.01) }
        #expect(entered != nil)
        await run.wait(20, "suspended after the budget") { await run.state() == "suspended" }
        #expect(run.processState() == "T")
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    @Test func aTaskEndedInTimeLetsItSuspendWithoutAnExpiryWarning() async throws {
        // The grace (2 s) is what a crowded test machine needs for the app to ask for its task.
        let run = try AppRunHarness(runOptions: ["--grace", "2", "--background-budget", "20"],
                                    appOptions: ["--task-on-background", "--task-seconds", "0.5"])
        guard await run.waitReady() else { return }
        try await run.move("background")
        await run.wait(20, "suspended after the task ended") { await run.state() == "suspended" }
        #expect(run.log.contains { $0["did"] as? String == "endBackgroundTask" })
        #expect(!run.heardEvents.contains("backgroundTimeWillExpire"))
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
    }

    @Test func aCrashingAppsTaskEndsWithItsSocket() async throws {
        // The grace (2 s) is what a crowded test machine needs for the app to ask for its task.
        let run = try AppRunHarness(runOptions: ["--grace", "2"], appOptions: ["--task-on-background", "--crash-after", "0.3"])
        guard await run.waitReady() else { return }
        let events = try CLIProcess(["app", "events", "--json"], environment: run.environment)
        defer { events.end() }
        // Moves until the watcher prints one, so it has certainly subscribed.
        var lines: [String] = []
        for attempt in 0..<20 where lines.isEmpty {
            try await run.move(attempt % 2 == 0 ? "inactive" : "foreground")
            if let line = await events.nextLine(timeout: 1) { lines.append(line) }
        }
        try await run.move("background")
        #expect(await run.exitStatus() == 3)
        while let line = await events.nextLine(timeout: 10) {
            lines.append(line)
            if line.contains("\"exited\"") { break }
        }
        #expect(lines.contains { $0.contains("backgroundTaskBegan") })
        #expect(lines.contains { $0.contains("backgroundTaskEnded") && ($0.contains("socket closed") || $0.contains("the app exited")) })
        #expect(lines.last?.contains("\"exited\"") == true)
    }

    @Test func aBusyLoopIsKilledInTheBackgroundWithAReportAndNotInTheForeground() async throws {
        let run = try AppRunHarness(runOptions: ["--cpu-limit", "20", "--cpu-window", "1", "--no-suspend"], appOptions: ["--busy"])
        guard await run.waitReady() else { return }
        // Busy in the foreground for twice the window: not touched.
        try await Task.sleep(for: .microseconds(2_000_000))
        #expect(!run.hasExited)
        #expect(await run.state() == "active")
        try await run.move("background")
        #expect(await run.exitStatus() == 137)
        let reports = (try? FileManager.default.contentsOfDirectory(atPath: run.directory + "/state/reports")) ?? []
        let text = reports.filter { $0.hasSuffix(".txt") }.compactMap {
            try? String(contentsOfFile: run.directory + "/state/reports/" + $0, encoding: .utf8)
        }.joined()
        #expect(text.contains("CPU_FATAL"))
        #expect(text.contains("(Limit 20%) Observed"))
    }

    @Test func terminateEndsASuspendedAppCleanly() async throws {
        let run = try AppRunHarness(runOptions: ["--grace", "0"])
        guard await run.waitReady() else { return }
        try await run.move("suspend")
        await run.wait(20, "suspended") { run.processState() == "T" }
        try await run.move("terminate")
        #expect(await run.exitStatus() == 0)
        #expect(run.log.contains { $0["signal"] as? String == "SIGTERM" })
    }

    @Test func lowPowerModeHalvesTheGrace() async throws {
        let run = try AppRunHarness(runOptions: ["--grace", "4"], command: nil, extraEnvironment: [:])
        // The override is read when joule run starts; write it first through the CLI.
        _ = try await CLIHarness.run(["lowpower", "on"], environment: run.environment)
        let halved = try AppRunHarness(runOptions: ["--grace", "4"], extraEnvironment: ["JOULE_STATE_DIR": run.directory + "/state"])
        guard await run.waitReady(), await halved.waitReady() else { return }
        try await halved.move("background")
        await halved.wait(20, "didEnterBackground") { halved.heardEvents.contains("didEnterBackground") }
        let heard = halved.log.compactMap { $0["heard"] as? [String: Any] }.first { $0["event"] as? String == "didEnterBackground" }
        let since = try await halved.entry()?["backgroundSince"] as? Double
        if let since, let deadline = heard?["deadline"] as? Double { #expect(abs(deadline - since - 2) < 0.01) } else {
            Issue.record("no deadline or backgroundSince: \(String(describing: heard))")
        }
        try await halved.move("terminate")
        try await run.move("terminate")
        #expect(await halved.exitStatus() == 0)
        #expect(await run.exitStatus() == 0)
    }

    @Test func stdinStdoutAndTheExitStatusPassThrough() async throws {
        let result = try await CLIHarness.run(
            ["run", "--", "/bin/sh", "-c", "read line; echo got:$line; exit 3"],
            environment: [
                "JOULE_RUNTIME_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("joule-app-\(UUID())").path,
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
            ],
            input: "hello\n")
        #expect(result.stdout == "got:hello\n")
        #expect(result.status == 3)
    }

    @Test func badInputIsRefusedOrIgnoredAndNamed() async throws {
        // A command that cannot start: 127 and the reason.
        let missing = try await CLIHarness.run(["run", "--", "/nonexistent/program"], environment: [
            "JOULE_RUNTIME_DIR": FileManager.default.temporaryDirectory.appendingPathComponent("joule-app-\(UUID())").path])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("/nonexistent/program: No such file or directory"))
        let unknown = try await CLIHarness.run(["run", "--", "no-such-command-joule"])
        #expect(unknown.status == 127)
        #expect(unknown.stderr.contains("no-such-command-joule: command not found"))
        // Garbage, an oversized packet and an unknown task id on the socket: logged, ignored,
        // and the app is still answered afterwards.
        let script = """
            import json, os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(os.environ["JOULE_LIFECYCLE_SOCKET"])
            s.send(b"not json"); s.send(b"{" + b" " * 5000 + b"}"); s.send(b'{"request":"endBackgroundTask","taskId":99}')
            s.send(b'{"request":"backgroundTimeRemaining"}')
            open(sys.argv[1], "w").write(s.recv(4096).decode())
            """
        let answer = FileManager.default.temporaryDirectory.appendingPathComponent("joule-answer-\(UUID())").path
        let run = try AppRunHarness(command: ["/usr/bin/python3", "-c", script, answer])
        #expect(await run.exitStatus() == 0)
        #expect((try? String(contentsOfFile: answer, encoding: .utf8)) == #"{"remaining":null}"#)
        #expect(run.stderr.contains("ignored a message: message is not JSON"))
        #expect(run.stderr.contains("5002 bytes"))
        #expect(run.stderr.contains("99"))
        // An unknown app name.
        let result = try await run.app(["background", "nope"])
        #expect(result.status == 2)
        // The app has exited by now, though its socket may still be going away.
        #expect(result.stderr.hasPrefix("joule: app background: no supervised app is named \"nope\" ("), "\(result.stderr)")
        try? FileManager.default.removeItem(atPath: answer)
    }

    @Test func nothingStaysStoppedAfterJouleRunIsKilled() async throws {
        // SIGTERM: joule run continues the app and passes the signal on.
        let terminated = try AppRunHarness(runOptions: ["--grace", "0"])
        guard await terminated.waitReady() else { return }
        try await terminated.move("suspend")
        await terminated.wait(20, "stopped") { terminated.processState() == "T" }
        terminated.signalJoule(SIGTERM)
        #expect(await terminated.exitStatus() == 0)
        #expect(terminated.log.contains { $0["signal"] as? String == "SIGTERM" })

        // SIGKILL: no handler runs; the journal left behind is recovered by the next joule app.
        let killed = try AppRunHarness(runOptions: ["--grace", "0"])
        guard await killed.waitReady() else { return }
        try await killed.move("suspend")
        await killed.wait(20, "stopped") { killed.processState() == "T" }
        let journal = killed.directory + "/run/apps/\(killed.name).paused.json"
        #expect(FileManager.default.fileExists(atPath: journal))
        killed.signalJoule(SIGKILL)
        _ = await killed.exitStatus()
        let list = try await killed.app(["list"])
        #expect(list.stderr.contains("resumed 1 of 1"))
        await killed.wait(20, "continued") { killed.processState() != "T" }
        #expect(!FileManager.default.fileExists(atPath: journal))
    }
}
