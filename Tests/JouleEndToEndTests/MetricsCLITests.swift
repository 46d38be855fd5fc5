import Foundation
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Prometheus from a real `joule daemon`: `/metrics` scraped over a real socket by Python's
/// urllib and read by prometheus_client, linted by `promtool check metrics` when it is here,
/// and `joule export` through GetMetrics, to stdout and as node_exporter's textfile.
@Suite(
    .serialized, .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"),
    .enabled("needs python3-prometheus-client (scripts/install-deps.sh)") { await PrometheusTools.hasPythonClient })
struct MetricsCLITests {
    static let pi = "raspberry-pi-4-no-battery"
    static let listening = "metrics:\n  enabled: true\n  listen: \"127.0.0.1:0\"\n"

    /// `joule ARGS` against `daemon`'s bus, on a thread of its own.
    static func joule(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CLIHarness.Result {
        var environment = daemon.environment
        environment["XDG_RUNTIME_DIR"] = nil
        return try await CLIHarness.run(arguments, environment: environment)
    }

    /// SIGTERM, then the exit status, waiting with Task.sleep (at most 30 s).
    static func stop(_ daemon: DaemonHarness) async throws -> Int32? {
        guard let process = daemon.process else { return nil }
        kill(process.processIdentifier, SIGTERM)
        return try await exitStatus(process)
    }

    static func exitStatus(_ process: Process) async throws -> Int32? {
        for _ in 0..<300 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// The URL the daemon logged, port chosen by the kernel.
    static func url(_ daemon: DaemonHarness) async throws -> String {
        try await daemon.waitForLog("serving /metrics on http://")
        let line = daemon.log.split(separator: "\n").first { $0.contains("serving /metrics on http://") } ?? ""
        return String(line[line.range(of: "http://")!.lowerBound...])
    }

    static func samples(_ families: [PrometheusTools.Family]) -> Set<String> { Set(families.flatMap(\.samples).map(\.description)) }

    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-textfile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A Pi with a weak supply: the firmware's flags, the engines' states and the empty
    /// transfer queue, the same by scrape, by `joule export` and in the textfile.
    @Test func aScrapeOfThePi() async throws {
        let daemon = try await DaemonHarness(fixture: Self.pi)
        try daemon.writeConfig(Self.listening)
        try await daemon.start()
        let url = try await Self.url(daemon)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/metrics"))

        let scraped = try await PrometheusTools.scrape(url)
        #expect(scraped.contentType == "text/plain; version=0.0.4; charset=utf-8")
        let samples = Self.samples(scraped.families)
        for expected in [
            "joule_low_power_mode_enabled{} 0.0", "joule_low_power_mode_info{source=\"auto\"} 1.0",
            "joule_thermal_state{} 0.0", "joule_thermal_state_info{state=\"nominal\"} 1.0",
            "joule_throttled{reason=\"under_voltage\"} 1.0", "joule_throttled{reason=\"throttled\"} 1.0",
            "joule_throttled{reason=\"arm_frequency_capped\"} 0.0", "joule_throttled{reason=\"under_voltage_since_boot\"} 1.0",
            "joule_throttled{reason=\"throttled_since_boot\"} 1.0", "joule_throttled{reason=\"soft_temp_limit_since_boot\"} 0.0",
            "joule_transfers{state=\"waiting\"} 0.0", "joule_transfers{state=\"completed\"} 0.0", "joule_transfer_bytes_total{} 0.0",
        ] {
            #expect(samples.contains(expected), "\(expected) missing from \(scraped.text)")
        }
        // Parts the config does not run, and energy nothing measures here, are absent.
        for absent in ["joule_enforcer_paused_classes", "joule_cpu_monitor_violations", "joule_beacon", "joule_power_watts", "joule_energy_joules"] {
            #expect(!scraped.text.contains(absent), "\(absent) in \(scraped.text)")
        }
        if let promtool = PrometheusTools.promtool(packageRoot: CLIHarness.packageRoot) {
            let lint = try await PrometheusTools.check(scraped.text, promtool: promtool)
            #expect(lint.status == 0 && lint.output.isEmpty, "promtool check metrics: \(lint.output)")
        }

        let exported = try await Self.joule(daemon, ["export"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout == scraped.text)

        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try await Self.joule(daemon, ["export", "--textfile", directory])
        #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["joule.prom"])
        let textfile = try String(contentsOfFile: directory + "/joule.prom", encoding: .utf8)
        #expect(Self.samples(try await PrometheusTools.parse(textfile)) == samples)

        // SIGHUP with the endpoint off: it stops listening; GetMetrics still answers.
        try daemon.writeConfig("metrics:\n  enabled: false\n")
        kill(daemon.process!.processIdentifier, SIGHUP)
        try await daemon.waitForLog("stopped serving /metrics on 127.0.0.1:")
        await #expect(throws: PrometheusTools.Failure.self) { try await PrometheusTools.scrape(url) }
        #expect(try await Self.joule(daemon, ["export"]).stdout == scraped.text)
        #expect(try await Self.stop(daemon) == 0)
    }

    /// The config opens no socket; `joule export` still writes the textfile, and says why
    /// when it cannot. The enforce run and the CPU watch report their figures.
    @Test func exportWithoutTheListener() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("""
            enforce:
              classes:
                builds:
                  level: deferrable
                  match:
                    - process: joule-no-such-process
            cpuMonitor:
              - match: ["^joule-no-such-process$"]
                action: report
            """)
        try await daemon.start()
        try await daemon.waitForLog("\"class\":\"builds\"")
        #expect(!daemon.log.contains("/metrics"), "\(daemon.log)")
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let written = try await Self.joule(daemon, ["export", "--textfile", directory])
        #expect(written.status == 0, "\(written.stderr)")
        let families = try await PrometheusTools.parse(try String(contentsOfFile: directory + "/joule.prom", encoding: .utf8))
        // The XPS at 14 % discharging: Low Power Mode on by the battery rule, so the deferrable
        // class is paused (with nothing to pause); no violation yet; no Pi flags.
        let samples = Self.samples(families)
        for expected in [
            "joule_low_power_mode_enabled{} 1.0", "joule_enforcer_paused_classes{} 1.0",
            "joule_cpu_monitor_violations_total{action=\"kill\"} 0.0", "joule_cpu_monitor_violations_total{action=\"throttle\"} 0.0",
            "joule_cpu_monitor_violations_total{action=\"report\"} 0.0",
        ] {
            #expect(samples.contains(expected), "\(expected) missing from \(samples.sorted())")
        }
        #expect(!families.contains { $0.name == "joule_throttled" })

        let missing = try await Self.joule(daemon, ["export", "--textfile", directory + "/nope"])
        // Checked before the daemon is asked: the user's input (issue 32's one rule).
        #expect(missing.status == 2)
        #expect(missing.stderr == "joule export: --textfile \(directory)/nope: No such file or directory (ENOENT)\n")
        #expect(try await Self.stop(daemon) == 0)

        let none = try await Self.joule(daemon, ["export"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("no joule daemon on the session or system bus"), "\(none.stderr)")
    }

    @Test func aBadListenAddressExits2NamingTheKey() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("metrics:\n  enabled: true\n  listen: localhost:9747\n")
        let process = try daemon.launch([])
        #expect(try await Self.exitStatus(process) == 2)
        #expect(daemon.log.contains("\(daemon.config):3:11: metrics.listen: \"localhost\" is not an IP address"), "\(daemon.log)")
    }
}
