import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleTesting
import JouleDaemonTesting
import Testing

/// `joule status`, `lowpower` and `watch` as clients of `joule daemon`: an `EnergyService`
/// exported by the test on a private bus stands in for the daemon, found through
/// DBUS_SYSTEM_BUS_ADDRESS with no session bus.
@Suite(.serialized) struct DaemonClientCLITests {
    static let fixture = StatusCLITests.fixture("thinkpad-t480-two-batteries-discharging")

    typealias FakeDaemon = StandInEnergyDaemon

    /// The daemon's GetStatus for `initial`: a fixture's report with what only the daemon adds.
    static func daemonStatus(_ initial: EnergyBusState, malformed: Bool) throws -> String {
        var report = try StatusReport.collect(
            source: SysfsDeviceSource(root: fixture), procRoot: fixture, lowPowerOverride: .auto)
        report.source = .daemon
        report.lowPowerMode = initial.lowPowerMode
        report.lowPowerActions = [
            KnobOutcome(knob: "platformProfile", path: "/sys/firmware/acpi/platform_profile", original: "balanced", written: "low-power", state: .applied)
        ]
        var object = report.json
        if malformed { object["composite"] = .string("full") }
        return JSONValue.object(object).serialized
    }

    static func requireDaemon() throws {
        if PrivateBusDaemon.executable == nil {
            Issue.record("SKIPPED: dbus-daemon is not installed; run scripts/install-deps.sh")
            throw PrivateBusDaemon.Failure.missing("see the issue above")
        }
    }

    /// The test's environment with the private bus as the system bus and no session bus.
    static func environment(_ bus: PrivateBusDaemon, state: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = nil
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["JOULE_STATE_DIR"] = state.path
        return environment
    }

    /// Runs joule to its end (in `directory` when given) on a thread of its own, so that no
    /// thread of the pool, which answers the bus, is held.
    static func run(_ arguments: [String], environment: [String: String], directory: URL? = nil) async throws -> CLIHarness.Result {
        try await Program.run(CLIHarness.binary, arguments, environment: environment, directory: directory)
    }

    /// A fresh bus, state directory and stand-in daemon for `body`.
    static func withDaemon(
        _ initial: EnergyBusState = .init(), refuse: Bool = false, malformed: Bool = false,
        _ body: (FakeDaemon, [String: String]) async throws -> Void
    ) async throws {
        try requireDaemon()
        let state = try StatusCLITests.cleanState()
        defer { try? FileManager.default.removeItem(at: state.dir) }
        try await PrivateBusDaemon.with { bus in
            let daemon = try await FakeDaemon(
                address: bus.address, initial: initial, status: try daemonStatus(initial, malformed: malformed), refuse: refuse)
            try await body(daemon, environment(bus, state: state.dir))
            await daemon.close()
        }
    }

    @Test func statusJSONIsTheDaemonsObject() async throws {
        try await Self.withDaemon { daemon, environment in
            let result = try await Self.run(["status", "--json"], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout == daemon.status + "\n")
            #expect(result.stdout.contains(#""source":"daemon""#))
            #expect(result.stderr.isEmpty, "\(result.stderr)")
        }
    }

    @Test func statusWithRootIgnoresTheDaemon() async throws {
        try await Self.withDaemon { _, environment in
            let result = try await Self.run(["status", "--json", "--root", Self.fixture], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains(#""source":"direct""#))
        }
    }

    /// A reply that does not decode is named by its key, and the hardware is read instead.
    @Test func aMalformedStatusFallsBackToDirectNamingTheKey() async throws {
        try await Self.withDaemon(malformed: true) { _, environment in
            let result = try await Self.run(["status", "--json"], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains(#""source":"direct""#))
            #expect(result.stderr.contains("GetStatus") || result.stderr.contains("composite"), "\(result.stderr)")
            #expect(result.stderr.contains("composite: expected an object"), "\(result.stderr)")
            #expect(result.stderr.contains("reading the hardware directly"), "\(result.stderr)")
        }
    }

    @Test func statusTableShowsTheDaemonsView() async throws {
        var initial = EnergyBusState()
        initial.lowPowerMode = true
        initial.source = .manual
        initial.warningLevel = .critical
        try await Self.withDaemon(initial) { _, environment in
            let result = try await Self.run(["status"], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            for line in [
                "source              joule daemon (system bus)", "low power mode      on (manual)",
                "Low Power Mode actions", "platformProfile     balanced -> low-power, applied",
                "warning level       critical", "Battery BAT0", "Composite battery",
            ] {
                #expect(result.stdout.contains(line), "\(line) missing from\n\(result.stdout)")
            }
        }
    }

    @Test func lowpowerGoesThroughSetLowPowerMode() async throws {
        var initial = EnergyBusState()
        initial.source = .manual
        try await Self.withDaemon(initial) { daemon, environment in
            let result = try await Self.run(["lowpower", "on"], environment: environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout == "Low Power Mode: on (set through joule daemon)\n")
            #expect(daemon.modes == [.on])
            // Nothing was stored: the daemon holds the choice.
            #expect(try FileManager.default.contentsOfDirectory(atPath: environment["JOULE_STATE_DIR"]!).isEmpty)
            // The mode shown is the daemon's: manual and off.
            #expect(try await Self.run(["lowpower"], environment: environment).stdout == "off\n")
            var next = initial
            next.source = .auto
            next.lowPowerMode = true
            await daemon.service.update(next)
            #expect(try await Self.run(["lowpower"], environment: environment).stdout == "auto\n")
        }
    }

    @Test func lowpowerRefusedExitsOneWithTheDaemonsMessage() async throws {
        try await Self.withDaemon(refuse: true) { daemon, environment in
            let result = try await Self.run(["lowpower", "off"], environment: environment)
            #expect(result.status == 1)
            #expect(result.stderr == "joule: not authorised to set Low Power Mode: Not authorized by polkit\n")
            #expect(result.stdout.isEmpty)
            #expect(daemon.modes.isEmpty)
        }
    }

    static func object(_ line: String?) throws -> [String: Any] {
        let line = try #require(line, "no line")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
    }

    @Test func watchFollowsTheDaemonsSignals() async throws {
        try await Self.withDaemon { daemon, environment in
            let log = environment["JOULE_STATE_DIR"]! + "/hook.log"
            let watch = try CLIProcess(
                ["watch", "--json", "--exec", "echo \"$JOULE_EVENT $JOULE_LOW_POWER $JOULE_REASON\" >> '\(log)'"],
                environment: environment)
            let snapshot = try await Self.object(watch.nextLine())
            #expect(snapshot["event"] as? String == "snapshot")
            #expect(snapshot["source"] as? String == "daemon")
            #expect(snapshot["timestamp"] is Double || snapshot["timestamp"] is Int)
            #expect((snapshot["batteries"] as? [Any])?.count == 2)

            var next = EnergyBusState()
            next.lowPowerMode = true
            next.source = .manual
            await daemon.service.update(next)
            await daemon.service.powerStateDidChange(lowPowerMode: true, reason: "manual-on")
            let line = try #require(await watch.nextLine())
            let event = try Self.object(line)
            #expect(event["event"] as? String == "powerStateDidChange")
            #expect(event["lowPowerMode"] as? Bool == true && event["reason"] as? String == "manual-on")
            #expect(line.hasPrefix(#"{"timestamp":"#) && line.hasSuffix(#","event":"powerStateDidChange","lowPowerMode":true,"reason":"manual-on"}"#), "\(line)")

            await daemon.service.thermalStateDidChange(state: .serious, previous: .nominal, cause: "thermal_zone0")
            let thermal = try await Self.object(watch.nextLine())
            #expect(thermal["event"] as? String == "thermalStateDidChange")
            #expect(thermal["state"] as? String == "serious" && thermal["previous"] as? String == "nominal")
            #expect(thermal["cause"] as? String == "thermal_zone0")

            #expect(await watch.stop(SIGTERM) == 0)
            let hooks = try String(contentsOfFile: log, encoding: .utf8)
            #expect(hooks.contains("powerStateDidChange 1 manual-on"), "\(hooks)")
        }
    }

    @Test func watchEndsWithStatusOneWhenTheDaemonLeaves() async throws {
        try await Self.withDaemon { daemon, environment in
            let watch = try CLIProcess(["watch", "--json"], environment: environment)
            _ = try await Self.object(watch.nextLine())
            await daemon.close()
            let deadline = ContinuousClock.now + .seconds(20)
            while !watch.hasExited && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(watch.hasExited)
            #expect(await watch.stop(SIGTERM) == 1)
            #expect(watch.pendingLines().isEmpty)
        }
    }

    @Test func watchWithEngineOptionsReadsTheHardwareItself() async throws {
        try await Self.withDaemon { _, environment in
            let watch = try CLIProcess(["watch", "--json", "--root", Self.fixture, "--interval", "5"], environment: environment)
            let snapshot = try await Self.object(watch.nextLine())
            #expect(snapshot["source"] as? String == "direct")
            #expect(await watch.stop(SIGTERM) == 0)
        }
    }
}
