import Foundation
import JouleHardware
import JouleTesting
import Testing

/// `joule status` on every fixture: the --root output must equal the fixture's
/// expected-status.json, and the libudev path under umockdev must agree with it.
@Suite struct StatusCLITests {
    static var fixtureNames: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: CLIHarness.fixturesDirectory.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(
                atPath: CLIHarness.fixturesDirectory.appendingPathComponent($0).appendingPathComponent("expected-status.json").path)
        }.sorted()
    }

    static func fixture(_ name: String) -> String { CLIHarness.fixturesDirectory.appendingPathComponent(name).path }

    /// An environment whose Low Power Mode override is "auto" (an empty state directory).
    static func cleanState() throws -> (env: [String: String], dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (["JOULE_STATE_DIR": dir.path], dir)
    }

    static func parse(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// Key-order-independent text of a JSON value, for semantic comparison with readable diffs.
    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted]), as: UTF8.self)
    }

    @Test func atLeastTenFixtures() async {
        #expect(Self.fixtureNames.count >= 10)
        #expect(Self.fixtureNames.contains("thinkpad-t480-two-batteries-discharging"))
    }

    @Test(arguments: fixtureNames)
    func rootOutputMatchesExpected(_ name: String) async throws {
        let state = try Self.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let result = try await CLIHarness.run(["status", "--json", "--root", Self.fixture(name)], environment: state.env)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let actual = try Self.parse(result.stdout)
        let expectedText = try String(contentsOfFile: Self.fixture(name) + "/expected-status.json", encoding: .utf8)
        let expected = try Self.parse(expectedText)
        #expect(try Self.canonical(actual) == Self.canonical(expected))
    }

    @Test(arguments: fixtureNames)
    func udevUnderUmockdevAgreesWithRoot(_ name: String) async throws {
        let state = try Self.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let direct = try await CLIHarness.run(["status", "--json", "--root", Self.fixture(name)], environment: state.env)
        var env = state.env
        env["UMOCKDEV_DIR"] = Self.fixture(name)
        env["LD_PRELOAD"] = "libumockdev-preload.so.0"
        let live = try await CLIHarness.run(["status", "--json"], environment: env)
        #expect(live.status == 0, "stderr: \(live.stderr)")
        #expect(!live.stderr.contains("cannot be preloaded"), "umockdev is not installed: \(live.stderr)")
        var a = try Self.parse(direct.stdout)
        var b = try Self.parse(live.stdout)
        // CPU differs on purpose: the live path reads the real /proc.
        a["cpu"] = nil
        b["cpu"] = nil
        for key in ["batteries", "peripherals", "lineSources", "composite", "onBattery", "thermalZones", "coolingDevices", "thermalState", "lowPowerMode"] {
            #expect(b[key] != nil, "\(key) missing from the udev output")
        }
        #expect(try Self.canonical(a) == Self.canonical(b))
    }

    @Test func jsonKeysFollowTheContractOrder() async throws {
        let state = try Self.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let result = try await CLIHarness.run(
            ["status", "--json", "--root", Self.fixture("thinkpad-t480-two-batteries-discharging")], environment: state.env)
        let text = result.stdout
        func inOrder(_ keys: [String]) -> Bool {
            var position = text.startIndex
            for key in keys {
                guard let range = text.range(of: "\"\(key)\":", range: position..<text.endIndex) else { return false }
                position = range.upperBound
            }
            return true
        }
        #expect(inOrder(["onBattery", "lowPowerMode", "thermalState", "batteries", "peripherals", "lineSources",
                         "composite", "thermalZones", "coolingDevices", "cpu"]))
        #expect(inOrder(["name", "state", "percentage", "energyWh", "energyFullWh", "energyFullDesignWh", "energyRateW",
                         "voltageV", "timeToEmptyS", "timeToFullS", "healthPercent", "cycleCount", "technology", "model",
                         "manufacturer"]))
        #expect(text.hasSuffix("}\n") && !text.dropLast().contains("\n"), "one line of JSON")
    }

    @Test func humanTableShowsDevicesAndUnknowns() async throws {
        let state = try Self.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let result = try await CLIHarness.run(["status", "--root", Self.fixture("chromebook-broken-sensors")], environment: state.env)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Battery sbs-0-0009"))
        #expect(result.stdout.contains("unknown"))
        #expect(result.stdout.contains("temp: not a number"))
    }

    @Test func liveStatusRunsOnThisMachine() async throws {
        let state = try Self.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        let result = try await CLIHarness.run(["status", "--json"], environment: state.env)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try Self.parse(result.stdout)
        let cpu = try #require(object["cpu"] as? [String: Any])
        #expect((cpu["cores"] as? Int ?? 0) > 0)
    }

    // MARK: bad roots

    @Test func missingRootExitsTwoNamingPathAndErrno() async throws {
        let missing = "/nonexistent/joule-fixture-\(UUID().uuidString)"
        let result = try await CLIHarness.run(["status", "--json", "--root", missing])
        #expect(result.status == 2)
        #expect(result.stderr.contains(missing))
        #expect(result.stderr.contains("ENOENT"))
        #expect(result.stdout.isEmpty)
    }

    @Test func rootThatIsAFileExitsTwo() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("joule-root-\(UUID().uuidString)")
        try Data("not a tree".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CLIHarness.run(["status", "--root", file.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains(file.path))
        #expect(result.stderr.contains("ENOTDIR"))
    }

    @Test func unreadableClassDirectoryExitsOneNamingIt() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-badclass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sys/class"), withIntermediateDirectories: true)
        // A file where the power_supply class directory should be: the tree itself is broken.
        try Data("x".utf8).write(to: dir.appendingPathComponent("sys/class/power_supply"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLIHarness.run(["status", "--json", "--root", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("sys/class/power_supply"))
        #expect(result.stderr.contains("ENOTDIR"))
    }

    @Test func aTreeWithAnEmptySysIsAMachineWithoutDevices() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sys"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLIHarness.run(["status", "--json", "--root", dir.path])
        #expect(result.status == 0)
        let object = try Self.parse(result.stdout)
        #expect(object["composite"] is NSNull)
        #expect((object["batteries"] as? [Any])?.isEmpty == true)
        let cpu = try #require(object["cpu"] as? [String: Any])
        #expect(cpu["cores"] is NSNull)
        #expect(cpu["usagePercent"] is NSNull)
    }

    /// Issue 32: a directory that is not a machine's tree (the folder above the fixtures, or an
    /// empty one) is the user's mistake, not a machine without devices.
    @Test func aRootWithoutSysOrProcExitsTwo() async throws {
        let parent = CLIHarness.fixturesDirectory.path
        for arguments in [["status", "--root", parent], ["status", "--json", "--root=\(parent)"], ["watch", "--root", parent],
                          ["top", "--root", parent, "--count", "1"], ["devices", "power_supply", "--root", parent]] {
            let result = try await CLIHarness.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "joule: root \(parent) holds neither sys/ nor proc/: not a machine's tree (a fixture such as hw-fixtures/NAME holds them)\n", "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func garbageProcStatGivesNullCPU() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("joule-garbage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("proc"), withIntermediateDirectories: true)
        try Data("cpu  1 2 three\n\u{0}\u{1}".utf8).write(to: dir.appendingPathComponent("proc/stat"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLIHarness.run(["status", "--json", "--root", dir.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let cpu = try #require(try Self.parse(result.stdout)["cpu"] as? [String: Any])
        #expect(cpu["cores"] is NSNull)
    }

    @Test func unknownOptionIsAUsageError() async throws {
        let result = try await CLIHarness.run(["status", "--bogus"])
        #expect(result.status == 2)
        let empty = try await CLIHarness.run(["status", "--root", ""])
        #expect(empty.status == 2)
    }

    /// Issue 32: a file another user made unreadable (mode 000) is a failure with its errno,
    /// in the JSON and the table, never "missing" or a silent unknown.
    @Test(.enabled(if: NobodyBusctl.isAvailable, "needs root and setpriv to become nobody"))
    func unreadableAttributesCarryEACCES() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("joule-eacces-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        _ = try await Program.run("/bin/cp", ["-a", Self.fixture("dell-xps-13-low-battery-discharging"), copy.path])
        _ = try await Program.run("/bin/chmod", ["-R", "a+rX", copy.path])
        for file in ["sys/class/thermal/thermal_zone0/temp", "sys/class/power_supply/BAT0/energy_now", "sys/class/power_supply/BAT0/capacity"] {
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: copy.appendingPathComponent(file).resolvingSymlinksInPath().path)
        }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("joule-eacces-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        // setpriv execs joule itself: /usr/bin/env as nobody could not reach a binary under a
        // 0700 directory (a clone in `mktemp -d`), which setpriv's own exec can.
        var environment = ProcessInfo.processInfo.environment
        environment["JOULE_STATE_DIR"] = state.path
        environment["JOULE_RUNTIME_DIR"] = state.path
        func asNobody(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let result = try await Program.run(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", CLIHarness.binary.path] + arguments,
                environment: environment, mergingErrors: true)
            return (result.status, result.stdout)
        }
        let (status, output) = try await asNobody(["status", "--json", "--root", copy.path])
        #expect(status == 0, "\(output)")
        let object = try Self.parse(output)
        let battery = try #require((object["batteries"] as? [[String: Any]])?.first)
        #expect(battery["percentage"] is NSNull)
        #expect(battery["error"] as? String
            == "capacity: read failed: Permission denied (EACCES); energy_now: read failed: Permission denied (EACCES)")
        let zone = try #require((object["thermalZones"] as? [[String: Any]])?.first { $0["name"] as? String == "thermal_zone0" })
        #expect(zone["error"] as? String == "temp: read failed: Permission denied (EACCES)")
        let (_, table) = try await asNobody(["status", "--root", copy.path])
        #expect(table.contains("capacity: read failed: Permission denied (EACCES)"), "\(table)")
        #expect(table.contains("temp: read failed: Permission denied (EACCES)"), "\(table)")
    }
}
