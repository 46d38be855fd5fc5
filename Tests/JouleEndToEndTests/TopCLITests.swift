import Foundation
import JouleTesting
import Testing

/// A writable copy of a fixture machine with processes of our own in its proc/.
final class TopFixture {
    let path: String
    static let intelRange: UInt64 = 262_143_328_850
    static let editorScope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-editor-4242.scope"

    init(_ machine: String) async throws {
        path = try await FixtureCopy.make(machine)
        try process(100, "editor", utime: 50, switches: 50, cgroup: Self.editorScope)
        try process(200, "indexer", utime: 10, switches: 10, cgroup: "/system.slice/indexer.service")
        try process(300, "backup", utime: 0, switches: 0, cgroup: "/system.slice/indexer.service")
        try node(busy: 1000, idle: 9000)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ relative: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func process(_ pid: Int32, _ comm: String, utime: UInt64, switches: UInt64, cgroup: String) throws {
        let stat = ProcTree.statLine(pid: pid, comm: comm, utime: utime)
        try write("proc/\(pid)/stat", stat)
        try write("proc/\(pid)/task/\(pid)/stat", stat)
        try write("proc/\(pid)/status", ProcTree.statusText(pid: pid, comm: comm, voluntarySwitches: switches))
        try write("proc/\(pid)/cgroup", "0::\(cgroup)\n")
    }

    func node(busy: UInt64, idle: UInt64) throws {
        try write("proc/stat", "cpu  \(busy) 0 0 \(idle) 0 0 0 0 0 0\ncpu0 \(busy) 0 0 \(idle) 0 0 0 0 0 0\n")
    }

    func energy(_ zone: String, _ microjoules: UInt64) throws {
        try write("sys/class/powercap/\(zone)/energy_uj", "\(microjoules)\n")
    }
}

@Suite struct TopCLITests {
    static let xps = "dell-xps-13-low-battery-discharging"

    static func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func rows(_ line: [String: Any]) -> [[String: Any]] { line["processes"] as? [[String: Any]] ?? [] }

    @Test func aFixtureGivesOneJSONLinePerSampleInTheBindingShape() async throws {
        let fixture = try await TopFixture(Self.xps)
        let result = try await CLIHarness.run(["top", "--root", fixture.path, "--json", "--count", "2", "--interval", "0.1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try Self.objects(result.stdout)
        #expect(lines.count == 2)
        let first = result.stdout.split(separator: "\n")[0]
        // The binding keys come first and in order.
        #expect(first.hasPrefix("{\"timestamp\":"))
        let keys = ["\"timestamp\":", "\"source\":", "\"systemW\":", "\"processes\":"].map { first.range(of: $0)?.lowerBound }
        #expect(keys.allSatisfy { $0 != nil } && keys.map { $0! } == keys.map { $0! }.sorted())
        let line = try #require(lines.last)
        #expect(line["source"] as? String == "rapl" && line["origin"] as? String == "rapl:psys")
        #expect((line["passedOver"] as? [Any])?.isEmpty == true)
        // Nothing in the tree moves: RAPL measured 0 J, not unknown.
        #expect(line["systemW"] as? Double == 0)
        let rows = Self.rows(line)
        #expect(Set(rows.compactMap { $0["pid"] as? Int }) == [100, 200, 300])
        let editor = try #require(rows.first { $0["name"] as? String == "editor" })
        #expect(editor["unit"] as? String == "app-gnome-editor.scope")
        for key in ["pid", "name", "unit", "cpuPercent", "wakeupsPerS", "powerW", "energyJ", "energyImpact"] {
            #expect(editor[key] != nil, "no \(key) in \(editor)")
        }
    }

    /// The tree changes while top runs: the psys counter wraps, a quarter of the node's ticks
    /// are busy, the editor runs 0.6 s and the indexer 0.2 s. Whichever sample sees it, the
    /// energy since start is the same; the sample that sees it has the watts. The interval
    /// (4 s) leaves a loaded machine time to write the change before the last sample.
    @Test func aCounterWrapWhileRunningIsCountedAndSplitByCPUTime() async throws {
        let fixture = try await TopFixture(Self.xps)
        try fixture.energy("intel-rapl:1", TopFixture.intelRange - 12_000_000)
        let top = try CLIProcess(["top", "--root", fixture.path, "--json", "--count", "3", "--interval", "4"])
        defer { top.end() }
        #expect(await eventually(timeout: 30) { top.pendingLines().count >= 1 || top.hasExited })
        try fixture.energy("intel-rapl:1", 8_000_000)
        try fixture.node(busy: 1100, idle: 9300)
        try fixture.process(100, "editor", utime: 110, switches: 90, cgroup: TopFixture.editorScope)
        try fixture.process(200, "indexer", utime: 30, switches: 10, cgroup: "/system.slice/indexer.service")
        #expect(await eventually(timeout: 30) { top.pendingLines().count >= 3 && top.hasExited })
        let lines = try Self.objects(top.pendingLines().joined(separator: "\n"))
        try #require(lines.count == 3)
        let energy = lines.compactMap { line -> Double? in
            guard let watts = line["systemW"] as? Double, let seconds = line["intervalS"] as? Double else { return nil }
            return watts * seconds
        }.reduce(0, +)
        #expect(abs(energy - 20) < 0.01)
        let last = Self.rows(try #require(lines.last))
        let editor = try #require(last.first { $0["pid"] as? Int == 100 })
        #expect(abs((editor["energyJ"] as? Double ?? 0) - 3) < 0.001)  // 20 J × ¼ busy × 0.6 s of 1 s busy
        let indexer = try #require(last.first { $0["pid"] as? Int == 200 })
        #expect(abs((indexer["energyJ"] as? Double ?? 0) - 1) < 0.001)
        let measured = try #require(lines.first { ($0["systemW"] as? Double ?? 0) > 0 })
        // Each figure is rounded to 3 places: the two parts may sum to 0.001 off the whole.
        #expect(abs((measured["idleW"] as? Double ?? 0) + (measured["activeW"] as? Double ?? 0) - (measured["systemW"] as? Double ?? 0)) < 0.0015)
    }

    @Test(.enabled(if: NobodyBusctl.isAvailable, "needs root and setpriv to become nobody"))
    func rootOnlyRAPLAsAUserIsPassedOverForTheBattery() async throws {
        let fixture = try await TopFixture(Self.xps)
        // What the kernel has done since CVE-2020-8694: energy_uj readable by root only.
        for zone in ["intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:0:2", "intel-rapl:1"] {
            let file = fixture.path + "/sys/class/powercap/\(zone)/energy_uj"
            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fixture.path)
        let (status, output) = try await DaemonCLITests.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", CLIHarness.binary.path,
            "top", "--root", fixture.path, "--json", "--count", "1", "--interval", "0.1",
        ])
        #expect(status == 0, "\(output)")
        let line = try #require(try Self.objects(output).first)
        #expect(line["source"] as? String == "battery")
        let passed = line["passedOver"] as? [String] ?? []
        #expect(passed.count == 1 && passed.first?.contains("root-only") == true, "\(passed)")
        #expect(abs((line["systemW"] as? Double ?? 0) - 5.836) < 1e-6)
    }

    @Test func nothingMeasuredGivesNullPowerAndAScore() async throws {
        let fixture = try await TopFixture("raspberry-pi-4-no-battery")
        let result = try await CLIHarness.run(["top", "--root", fixture.path, "--json", "--count", "1", "--interval", "0.1"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(try Self.objects(result.stdout).first)
        #expect(line["source"] as? String == "model")
        #expect(line["systemW"] is NSNull)
        #expect(line["passedOver"] as? [String] == ["rapl: no RAPL zones under /sys/class/powercap", "battery: no system battery"])
        for row in Self.rows(line) {
            #expect(row["powerW"] is NSNull && row["energyJ"] is NSNull)
            #expect(row["energyImpact"] as? Double == 0)
        }
    }

    @Test func byUnitGroupsProcessesIntoBoundedUnits() async throws {
        let fixture = try await TopFixture(Self.xps)
        let result = try await CLIHarness.run(["top", "--root", fixture.path, "--json", "--count", "1", "--interval", "0.1", "--by", "unit"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = Self.rows(try #require(try Self.objects(result.stdout).first))
        #expect(Set(rows.compactMap { $0["unit"] as? String }) == ["app-gnome-editor.scope", "indexer.service"])
        #expect(rows.allSatisfy { $0["pid"] is NSNull })
        #expect(rows.first { $0["unit"] as? String == "indexer.service" }?["processCount"] as? Int == 2)
    }

    @Test func aPipeGetsPlainSuccessiveTables() async throws {
        let fixture = try await TopFixture("raspberry-pi-4-no-battery")
        let result = try await CLIHarness.run(["top", "--root", fixture.path, "--count", "2", "--interval", "0.1", "--sort", "cpu"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}["))
        #expect(result.stdout.components(separatedBy: "joule top ").count == 3)
        #expect(result.stdout.contains("sorted by cpu"))
        #expect(result.stdout.contains("power   model: nothing measures power here"))
        #expect(result.stdout.contains("passed  rapl: no RAPL zones under /sys/class/powercap; battery: no system battery"))
        #expect(result.stdout.contains("PID  NAME"))
        #expect(result.stdout.contains("  editor "))
    }

    @Test func theLiveMachineShowsItsProcesses() async throws {
        let result = try await CLIHarness.run(["top", "--json", "--count", "1", "--interval", "0.3"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(try Self.objects(result.stdout).first)
        #expect(["rapl", "battery", "model"].contains(line["source"] as? String ?? ""))
        let rows = Self.rows(line)
        let me = try #require(rows.first { $0["name"] as? String == "joule" })
        #expect(me["wakeupsPerS"] is Double && me["cpuPercent"] is Double)
    }

    @Test(arguments: [
        ["--interval", "0"], ["--count", "0"], ["--sort", "speed"], ["--by", "pid"], ["--root", ""],
    ])
    func badArgumentsExitTwo(arguments: [String]) async throws {
        let result = try await CLIHarness.run(["top", "--json"] + arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
    }

    /// Issue 32: text output shows 24-hour local time in every locale: with a zone where it is
    /// now afternoon and an American locale, top's header says 13:xx-23:xx, never "PM".
    @Test func timesAre24HourInEveryLocale() async throws {
        let fixture = try await TopFixture(Self.xps)
        let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour!
        let offset = ((18 - hour) % 24 + 24) % 24 > 12 ? ((18 - hour) % 24 + 24) % 24 - 24 : ((18 - hour) % 24 + 24) % 24
        // tzdata's Etc zones are west-positive: Etc/GMT-5 is UTC+5.
        let zone = "Etc/GMT\(offset > 0 ? "-" : "+")\(abs(offset))"
        try #require(FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + zone), "tzdata is not installed")
        let result = try await CLIHarness.run(
            ["top", "--root", fixture.path, "--count", "1", "--interval", "0.1"],
            environment: ["TZ": zone, "LANG": "en_US.UTF-8", "LC_ALL": "en_US.UTF-8"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let match = header.firstMatch(of: #/^joule top  (\d\d):(\d\d):(\d\d)  /#)
        #expect(match != nil, "\(header)")
        if let match { #expect((13...23).contains(Int(match.1)!), "\(header) in \(zone)") }
        #expect(!header.contains("AM") && !header.contains("PM"), "\(header)")
    }

    @Test func aMissingRootExitsTwo() async throws {
        let result = try await CLIHarness.run(["top", "--root", "/nonexistent-joule-root", "--count", "1"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("/nonexistent-joule-root"))
    }
}
