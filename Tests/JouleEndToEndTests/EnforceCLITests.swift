import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule enforce` on fixture copies changed on disk, pausing real child processes.
@Suite struct EnforceCLITests {
    static let thinkpad = "thinkpad-t480-two-batteries-discharging"
    static func zone(_ root: String) -> String { root + "/sys/class/thermal/thermal_zone0/temp" }

    static func writePolicy(_ text: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("policy.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func object(_ line: String?) throws -> [String: Any] {
        let line = try #require(line, "no line from joule enforce")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
    }

    /// The next action line, checked to be `action` for `className`.
    static func expectAction(_ enforce: CLIProcess, _ action: String, _ className: String) async throws -> [String: Any] {
        guard let text = await enforce.nextLine() else {
            // Say how joule ended, so a failure here is diagnosable.
            Issue.record("no \(action) line for \(className); joule enforce ended with status \(await enforce.stop(SIGTERM))")
            throw CocoaError(.fileReadUnknown)
        }
        let line = try object(text)
        #expect(line["action"] as? String == action, "\(line)")
        #expect(line["class"] as? String == className, "\(line)")
        return line
    }

    static func targets(_ line: [String: Any]) -> [[String: Any]] { line["targets"] as? [[String: Any]] ?? [] }

    static func pids(_ line: [String: Any]) -> [Int] { targets(line).compactMap { $0["pid"] as? Int } }

    @Test func thermalTripsPauseAndResumeProcessesByNameAndPidFile() async throws {
        let root = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let named = try Sleeper()
        defer { named.end() }
        let byPidFile = try Sleeper()
        defer { byPidFile.end() }
        let untouched = try Sleeper()
        defer { untouched.end() }
        let pidFile = state.dir.appendingPathComponent("reports.pid").path
        try "\(byPidFile.pid)\n".write(toFile: pidFile, atomically: true, encoding: .utf8)
        let policy = try Self.writePolicy("""
            classes:
              background:
                level: deferrable
                match:
                  - process: \(named.name)
              reports:
                level: optional
                match:
                  - pidFile: \(pidFile)
            """, in: state.dir)
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", root, "--json", "--interval", "0.2"], environment: state.env)

        // acpitz: critical trip 128 °C, so serious from 113 °C and fair from 103 °C.
        try FixtureCopy.write("105000", to: Self.zone(root))
        let fair = try await Self.expectAction(enforce, "pause", "background")
        #expect(fair["reason"] as? String == "thermal:fair")
        #expect(fair["thermalState"] as? String == "fair")
        #expect(fair["level"] as? String == "deferrable")
        #expect(Self.pids(fair) == [Int(named.pid)])
        #expect(Self.targets(fair).first?["result"] as? String == "stopped")
        #expect(await named.wait(stopped: true))
        #expect(!byPidFile.isStopped && !untouched.isStopped)
        #expect(FileManager.default.fileExists(atPath: state.dir.appendingPathComponent("enforce-paused.json").path))

        try FixtureCopy.write("115000", to: Self.zone(root))
        let serious = try await Self.expectAction(enforce, "pause", "reports")
        #expect(serious["reason"] as? String == "thermal:serious")
        #expect(Self.pids(serious) == [Int(byPidFile.pid)])
        #expect(await byPidFile.wait(stopped: true))

        try FixtureCopy.write("40000", to: Self.zone(root))
        var resumed: [String] = []
        while resumed.count < 2 {
            let line = try await Self.object(enforce.nextLine())
            #expect(line["action"] as? String == "resume")
            #expect(line["reason"] as? String == "recovered")
            #expect(Self.targets(line).allSatisfy { $0["result"] as? String == "continued" })
            resumed.append(line["class"] as? String ?? "?")
        }
        #expect(Set(resumed) == ["background", "reports"])
        #expect(await named.wait(stopped: false))
        #expect(await byPidFile.wait(stopped: false))

        // Critical pauses both again; SIGTERM resumes both before joule exits.
        try FixtureCopy.write("124000", to: Self.zone(root))
        _ = try await Self.object(enforce.nextLine())
        _ = try await Self.object(enforce.nextLine())
        #expect(await named.wait(stopped: true))
        #expect(await byPidFile.wait(stopped: true))
        #expect(await enforce.stop(SIGTERM) == 0)
        let exitLines = try enforce.pendingLines().map { try Self.object($0) }
        #expect(exitLines.count == 2)
        #expect(exitLines.allSatisfy { $0["action"] as? String == "resume" && $0["reason"] as? String == "signal:SIGTERM" })
        #expect(!named.isStopped && !byPidFile.isStopped && !untouched.isStopped)
        #expect(!FileManager.default.fileExists(atPath: state.dir.appendingPathComponent("enforce-paused.json").path))
    }

    @Test func lowPowerModePausesDeferrableWorkAndResumesItWhenCharged() async throws {
        let root = try await FixtureCopy.make(Self.thinkpad)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let deferrable = try Sleeper()
        defer { deferrable.end() }
        let optional = try Sleeper()
        defer { optional.end() }
        let policy = try Self.writePolicy("""
            classes:
              sync:
                level: deferrable
                match: [{processRegex: '^\(deferrable.name)$'}]
              thumbnails:
                level: optional
                match: [{process: \(optional.name)}]
            """, in: state.dir)
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", root, "--json", "--interval", "0.2"], environment: state.env)

        let supplies = root + "/sys/class/power_supply/"
        func setBatteries(percent: Int, status: String) throws {
            for battery in ["BAT0", "BAT1"] {
                let full = try #require(Int(try String(contentsOfFile: supplies + battery + "/energy_full", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
                try FixtureCopy.write(String(full / 100 * percent), to: supplies + battery + "/energy_now")
                try FixtureCopy.write(String(percent), to: supplies + battery + "/capacity")
                try FixtureCopy.write(status, to: supplies + battery + "/status")
            }
        }
        try setBatteries(percent: 10, status: "Discharging")
        let on = try await Self.expectAction(enforce, "pause", "sync")
        #expect(on["reason"] as? String == "lowPowerMode")
        #expect(on["lowPowerMode"] as? Bool == true)
        #expect(Self.pids(on) == [Int(deferrable.pid)])
        #expect(await deferrable.wait(stopped: true))
        #expect(!optional.isStopped)

        // Plugged in and charged past 80 %: Low Power Mode turns off, the work resumes.
        try FixtureCopy.write("1", to: supplies + "AC/online")
        try setBatteries(percent: 85, status: "Charging")
        let off = try await Self.expectAction(enforce, "resume", "sync")
        #expect(off["reason"] as? String == "recovered")
        #expect(off["lowPowerMode"] as? Bool == false)
        #expect(await deferrable.wait(stopped: false))
        #expect(await enforce.stop(SIGINT) == 0)
        #expect(!deferrable.isStopped && !optional.isStopped)
    }

    @Test func newMatchingProcessesOfAPausedClassArePausedOnRescan() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let first = try Sleeper()
        defer { first.end() }
        let policy = try Self.writePolicy("classes:\n  all:\n    match: [{processRegex: '^\(first.name)'}]\n", in: state.dir)
        let critical = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", critical, "--json", "--interval", "0.2"], environment: state.env)
        let pause = try await Self.expectAction(enforce, "pause", "all")
        #expect(Self.pids(pause) == [Int(first.pid)])
        #expect(await first.wait(stopped: true))

        let second = try Sleeper(name: first.name + "b")
        defer { second.end() }
        let rescan = try await Self.expectAction(enforce, "pause", "all")
        #expect(rescan["reason"] as? String == "rescan")
        #expect(Self.pids(rescan) == [Int(second.pid)])
        #expect(await second.wait(stopped: true))
        #expect(await enforce.stop(SIGTERM) == 0)
        let exit = try Self.object(enforce.pendingLines().first)
        #expect(Set(Self.pids(exit)) == [Int(first.pid), Int(second.pid)])
        #expect(!first.isStopped && !second.isStopped)
    }

    @Test func theManualLowPowerOverridePausesAndResumes() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        let policy = try Self.writePolicy("classes:\n  sync:\n    level: deferrable\n    match: [{process: \(sleeper.name)}]\n", in: state.dir)
        let onAC = CLIHarness.fixturesDirectory.appendingPathComponent("dell-latitude-7490-full-on-ac").path
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", onAC, "--json", "--interval", "0.2"], environment: state.env)
        #expect(try await CLIHarness.run(["lowpower", "on"], environment: state.env).status == 0)
        let on = try await Self.expectAction(enforce, "pause", "sync")
        #expect(on["reason"] as? String == "lowPowerMode")
        #expect(await sleeper.wait(stopped: true))
        #expect(try await CLIHarness.run(["lowpower", "auto"], environment: state.env).status == 0)
        _ = try await Self.expectAction(enforce, "resume", "sync")
        #expect(await sleeper.wait(stopped: false))
        #expect(await enforce.stop(SIGTERM) == 0)
        #expect(enforce.pendingLines().isEmpty)
    }

    @Test func aCrashStillResumesPausedWork() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        let policy = try Self.writePolicy("classes:\n  all:\n    match: [{process: \(sleeper.name)}]\n", in: state.dir)
        // hp-zbook is critical from the start: even `normal` work pauses at once.
        let fixture = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", fixture, "--json"], environment: state.env)
        let pause = try await Self.expectAction(enforce, "pause", "all")
        #expect(pause["reason"] as? String == "thermal:critical")
        #expect(await sleeper.wait(stopped: true))
        // SIGABRT is what a Swift runtime failure or abort() raises: the crash guard continues
        // every stopped process before joule dies of it.
        #expect(await enforce.stop(SIGABRT, timeout: 120) == SIGABRT)
        #expect(await sleeper.wait(stopped: false))
    }

    @Test func aSIGKILLedRunsWorkIsResumedByTheNextRun() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        let policy = try Self.writePolicy("classes:\n  all:\n    match: [{process: \(sleeper.name)}]\n", in: state.dir)
        let critical = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path
        let first = try CLIProcess(["enforce", "--policy", policy, "--root", critical, "--json"], environment: state.env)
        _ = try await Self.expectAction(first, "pause", "all")
        #expect(await sleeper.wait(stopped: true))
        #expect(await first.stop(SIGKILL) == SIGKILL)
        // No handler runs on SIGKILL: the process stays stopped, the journal remembers it.
        #expect(sleeper.isStopped)

        // The next run, on a cool machine, resumes it from the journal first.
        let cool = CLIHarness.fixturesDirectory.appendingPathComponent("dell-latitude-7490-full-on-ac").path
        let second = try CLIProcess(["enforce", "--policy", policy, "--root", cool, "--json"], environment: state.env)
        let resume = try await Self.expectAction(second, "resume", "all")
        #expect(resume["reason"] as? String == "journal")
        #expect(Self.pids(resume) == [Int(sleeper.pid)])
        #expect(Self.targets(resume).first?["result"] as? String == "continued")
        #expect(await sleeper.wait(stopped: false))
        #expect(await second.stop(SIGTERM) == 0)
        #expect(!FileManager.default.fileExists(atPath: state.dir.appendingPathComponent("enforce-paused.json").path))
    }

    /// A journal as a killed `joule enforce` leaves it, for a process stopped by hand.
    static func journal(for sleeper: Sleeper, owner: String) throws -> String {
        let start = try #require(sleeper.startTime)
        return """
            {"version":1,"owner":\(owner),"paused":[{"kind":"process","pid":\(sleeper.pid),"startTime":"\(start)",\
            "name":"\(sleeper.name)","classes":["left"]}]}
            """
    }

    @Test func resumeAllContinuesWhatTheJournalNames() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        kill(sleeper.pid, SIGSTOP)
        #expect(await sleeper.wait(stopped: true))
        let journal = state.dir.appendingPathComponent("enforce-paused.json").path
        try Self.journal(for: sleeper, owner: "null").write(toFile: journal, atomically: true, encoding: .utf8)

        let result = try await CLIHarness.run(["enforce", "--resume-all", "--json"], environment: state.env)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let line = try Self.object(result.stdout.split(separator: "\n").first.map(String.init))
        #expect(line["action"] as? String == "resume")
        #expect(line["class"] as? String == "left")
        #expect(line["reason"] as? String == "journal")
        #expect(line["level"] is NSNull)
        #expect(Self.targets(line).first?["result"] as? String == "continued")
        #expect(await sleeper.wait(stopped: false))
        #expect(!FileManager.default.fileExists(atPath: journal))
    }

    @Test func refusesToStartWhileAnotherRunOwnsTheJournal() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        kill(sleeper.pid, SIGSTOP)
        // The owner is alive: this test's own process.
        let selfStat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let fields = selfStat[selfStat.index(after: try #require(selfStat.lastIndex(of: ")")))...].split(separator: " ")
        let owner = "{\"pid\":\(getpid()),\"startTime\":\"\(fields[19])\"}"
        let journal = state.dir.appendingPathComponent("enforce-paused.json").path
        try Self.journal(for: sleeper, owner: owner).write(toFile: journal, atomically: true, encoding: .utf8)
        let result = try await CLIHarness.run(["enforce", "--resume-all"], environment: state.env)
        #expect(result.status == 1)
        #expect(result.stderr.contains("another joule enforce (pid \(getpid()))"), "\(result.stderr)")
        #expect(sleeper.isStopped)
        #expect(FileManager.default.fileExists(atPath: journal))
    }

    @Test func aSecondRunOnTheSameStateDirectoryIsRefused() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        let policy = try Self.writePolicy("classes:\n  all:\n    match: [{process: \(sleeper.name)}]\n", in: state.dir)
        let critical = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path
        let first = try CLIProcess(["enforce", "--policy", policy, "--root", critical, "--json"], environment: state.env)
        _ = try await Self.expectAction(first, "pause", "all")
        let second = try await CLIHarness.run(["enforce", "--policy", policy, "--root", critical], environment: state.env)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another joule enforce is running"), "\(second.stderr)")
        let resumeAll = try await CLIHarness.run(["enforce", "--resume-all"], environment: state.env)
        #expect(resumeAll.status == 1)
        // The first run keeps its hold, and still resumes on exit.
        #expect(sleeper.isStopped)
        #expect(await first.stop(SIGTERM) == 0)
        #expect(await sleeper.wait(stopped: false))
    }

    @Test func dryRunPrintsDecisionsButNeverSignals() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        let policy = try Self.writePolicy("classes:\n  all:\n    match: [{process: \(sleeper.name)}]\n", in: state.dir)
        let critical = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path
        let enforce = try CLIProcess(["enforce", "--policy", policy, "--root", critical, "--json", "--dry-run"], environment: state.env)
        let pause = try await Self.expectAction(enforce, "pause", "all")
        #expect(pause["dryRun"] as? Bool == true)
        #expect(Self.targets(pause).first?["result"] as? String == "would-pause")
        #expect(Self.pids(pause) == [Int(sleeper.pid)])
        #expect(!sleeper.isStopped)
        #expect(!FileManager.default.fileExists(atPath: state.dir.appendingPathComponent("enforce-paused.json").path))
        #expect(await enforce.stop(SIGTERM) == 0)
        let exit = try Self.object(enforce.pendingLines().first)
        #expect(Self.targets(exit).first?["result"] as? String == "would-resume")
        #expect(!sleeper.isStopped)
    }

    @Test func aBadPolicyExitsTwoNamingFileLineAndKey() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let policy = try Self.writePolicy("classes:\n  a:\n    level: urgent\n    match: [{process: a}]\n", in: state.dir)
        let result = try await CLIHarness.run(["enforce", "--policy", policy], environment: state.env)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(policy):3:12: classes.a.level: unknown level \"urgent\""), "\(result.stderr)")
        let missing = try await CLIHarness.run(["enforce"], environment: state.env)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--policy"))
    }

    @Test func theExamplePolicyLoadsInADryRun() async throws {
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let example = CLIHarness.packageRoot.appendingPathComponent("examples/enforce-policy.yaml").path
        let cool = CLIHarness.fixturesDirectory.appendingPathComponent("dell-latitude-7490-full-on-ac").path
        let enforce = try CLIProcess(["enforce", "--policy", example, "--root", cool, "--dry-run"], environment: state.env)
        // Nominal, not in Low Power Mode: nothing pauses, so nothing is printed.
        #expect(await enforce.nextLine(timeout: 1) == nil)
        #expect(await enforce.stop(SIGINT) == 0)
    }
}

/// Cgroup selectors through the CLI, on a fake cgroup tree (`--cgroup-root`): frozen by
/// writing `cgroup.freeze`, thawed on exit, by the crash guard, and from the journal.
@Suite struct EnforceCgroupCLITests {
    static let critical = CLIHarness.fixturesDirectory.appendingPathComponent("hp-zbook-overheated-fan-active").path

    /// A fake tree with `/system.slice/backup.service` and the policy freezing it.
    static func setUp() throws -> (state: (env: [String: String], dir: URL), tree: String, freeze: String, policy: String) {
        let state = try StatusCLITests.cleanState()
        let tree = state.dir.appendingPathComponent("cgroups").path
        let directory = tree + "/sys/fs/cgroup/system.slice/backup.service"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "0\n".write(toFile: directory + "/cgroup.freeze", atomically: false, encoding: .utf8)
        try "populated 1\nfrozen 0\n".write(toFile: directory + "/cgroup.events", atomically: false, encoding: .utf8)
        let policy = try EnforceCLITests.writePolicy(
            "classes:\n  backups:\n    level: optional\n    match: [{cgroup: system.slice/backup.service}]\n", in: state.dir)
        return (state, tree, directory + "/cgroup.freeze", policy)
    }

    static func read(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test func frozenWhileCriticalAndThawedOnSIGTERM() async throws {
        let (state, tree, freeze, policy) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let enforce = try CLIProcess(
            ["enforce", "--policy", policy, "--root", Self.critical, "--cgroup-root", tree, "--json"], environment: state.env)
        let pause = try await EnforceCLITests.expectAction(enforce, "pause", "backups")
        let target = try #require(EnforceCLITests.targets(pause).first)
        #expect(target["kind"] as? String == "cgroup")
        #expect(target["cgroup"] as? String == "/system.slice/backup.service")
        // The fake kernel never confirms: freezing, not frozen.
        #expect(target["result"] as? String == "freezing")
        #expect(Self.read(freeze) == "1\n")
        #expect(await enforce.stop(SIGTERM) == 0)
        let resume = try EnforceCLITests.object(enforce.pendingLines().first)
        #expect(EnforceCLITests.targets(resume).first?["result"] as? String == "thawed")
        #expect(Self.read(freeze) == "0\n")
    }

    @Test func theCrashGuardThawsFrozenCgroups() async throws {
        let (state, tree, freeze, policy) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let enforce = try CLIProcess(
            ["enforce", "--policy", policy, "--root", Self.critical, "--cgroup-root", tree, "--json"], environment: state.env)
        _ = try await EnforceCLITests.expectAction(enforce, "pause", "backups")
        #expect(Self.read(freeze) == "1\n")
        #expect(await enforce.stop(SIGSEGV, timeout: 120) == SIGSEGV)
        #expect(Self.read(freeze)?.hasPrefix("0") == true)
    }

    @Test func aSIGKILLedRunsFrozenCgroupIsThawedByResumeAll() async throws {
        let (state, tree, freeze, policy) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let enforce = try CLIProcess(
            ["enforce", "--policy", policy, "--root", Self.critical, "--cgroup-root", tree, "--json"], environment: state.env)
        _ = try await EnforceCLITests.expectAction(enforce, "pause", "backups")
        #expect(await enforce.stop(SIGKILL) == SIGKILL)
        #expect(Self.read(freeze) == "1\n")
        let result = try await CLIHarness.run(["enforce", "--resume-all", "--cgroup-root", tree, "--json"], environment: state.env)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try EnforceCLITests.object(result.stdout.split(separator: "\n").first.map(String.init))
        #expect(line["reason"] as? String == "journal")
        #expect(EnforceCLITests.targets(line).first?["result"] as? String == "thawed")
        #expect(Self.read(freeze) == "0\n")
    }
}
