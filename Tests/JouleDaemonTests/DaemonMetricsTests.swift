import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleWorkloads
@testable import JouleDaemon
import JouleTesting
import Testing

/// The daemon's side of `/metrics`: gathering a sample from its parts, the endpoint's life
/// across config reloads, and the counters kept where events happen.
@Suite struct DaemonMetricsTests {
    static let fixtures = PackageRoot.url.appendingPathComponent("hw-fixtures")

    /// An exporter that renders a line per sample and records what it was asked to serve.
    final class RecordingExporter: MetricsExporter {
        struct Endpoint: MetricsEndpoint {
            let address: MetricsAddress
            let exporter: RecordingExporter
            func close() async { exporter.events.withLock { $0.append("close \(address)") } }
        }

        let events = Locked<[String]>([])
        let refuse: Bool

        init(refuse: Bool = false) { self.refuse = refuse }

        func exposition(_ sample: MetricsSample) -> String {
            "lpm=\(sample.lowPowerMode) thermal=\(sample.thermalState) throttled=\(sample.throttling.map { String($0.bits, radix: 16) } ?? "nil")\n"
        }

        func serve(at address: MetricsAddress, sample: @escaping @Sendable () async -> MetricsSample)
            async throws(MetricsError) -> any MetricsEndpoint
        {
            if refuse { throw MetricsError(address: address, reason: "Address already in use") }
            events.withLock { $0.append("serve \(address)") }
            return Endpoint(address: address, exporter: self)
        }
    }

    struct FixedEnergy: EnergySnapshotSource {
        let value: EnergySnapshot
        func snapshot() async -> EnergySnapshot { value }
    }

    static func engine(_ machine: String) async throws -> EnergyMonitor {
        let root = fixtures.appendingPathComponent(machine).path
        var configuration = EnergyMonitor.Configuration()
        configuration.procRoot = root
        let monitor = try EnergyMonitor(source: SysfsDeviceSource(root: root), overrideStore: nil, clock: ManualClock(), configuration: configuration)
        _ = try await monitor.start()
        return monitor
    }

    static func parts(_ machine: String, energy: (any EnergySnapshotSource)? = nil, workloads: DaemonWorkloads? = nil) async throws -> DaemonMetrics.Parts {
        DaemonMetrics.Parts(
            engine: try await engine(machine), workloads: workloads, transfers: nil, energy: energy,
            throttling: RaspberryPiThrottlingReader(root: FileRoot(fixtures.appendingPathComponent(machine).path)))
    }

    /// The XPS at 14 % discharging: Low Power Mode on by the battery rule; the energy comes
    /// from the injected source as it is; no workloads, no queue, no Pi.
    @Test func theSampleIsTheDaemonsState() async throws {
        let energy = EnergySnapshot(
            timestamp: 1_700_000_000, source: .rapl, origin: "rapl:psys", systemWatts: 7.25,
            domains: [.init(name: "psys", joules: 1234.5)], unitJoules: ["sshd.service": 0.5])
        let metrics = DaemonMetrics(
            exporter: RecordingExporter(), parts: try await Self.parts("dell-xps-13-low-battery-discharging", energy: FixedEnergy(value: energy)),
            log: { _ in })
        let sample = await metrics.sample()
        #expect(sample == MetricsSample(lowPowerMode: true, lowPowerModeSource: .auto, thermalState: .nominal, energy: energy))
    }

    /// The Pi's get_throttled reaches the sample; running workloads report their figures.
    @Test func throttlingAndWorkloads() async throws {
        let workloads = DaemonWorkloads(stateDirectory: nil, log: { _ in })
        let metrics = DaemonMetrics(
            exporter: RecordingExporter(), parts: try await Self.parts("raspberry-pi-4-no-battery", workloads: workloads), log: { _ in })
        let sample = await metrics.sample()
        #expect(sample.throttling == RaspberryPiThrottling(bits: 0x50005))
        #expect(sample.pausedClasses == nil && sample.violations == nil && sample.beacons.isEmpty)
        #expect(await metrics.exposition() == "lpm=false thermal=nominal throttled=50005\n")
    }

    /// A broken get_throttled is logged once, not at every scrape, and the flags are left out.
    @Test func aBrokenThrottlingFileIsLoggedOnce() async throws {
        let copy = try FixtureCopy("raspberry-pi-4-no-battery")
        try "garbage\n".write(toFile: copy.path + RaspberryPiThrottlingReader.path, atomically: false, encoding: .utf8)
        var parts = try await Self.parts("raspberry-pi-4-no-battery")
        parts.throttling = RaspberryPiThrottlingReader(root: FileRoot(copy.path))
        let lines = Locked<[String]>([])
        let metrics = DaemonMetrics(exporter: RecordingExporter(), parts: parts, log: { line in lines.withLock { $0.append(line) } })
        #expect(await metrics.sample().throttling == nil)
        #expect(await metrics.sample().throttling == nil)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("get_throttled: expected the firmware's flags in hex") == true, "\(logged)")
    }

    /// Off by default; on, moved and off again by reloads; an address in use is logged and
    /// the daemon carries on.
    @Test func theEndpointFollowsTheConfig() async throws {
        let exporter = RecordingExporter()
        let metrics = DaemonMetrics(exporter: exporter, parts: try await Self.parts("raspberry-pi-4-no-battery"), log: { _ in })
        await metrics.apply(MetricsSettings())
        await metrics.apply(MetricsSettings(enabled: true))
        await metrics.apply(MetricsSettings(enabled: true))
        await metrics.apply(MetricsSettings(enabled: true, listen: MetricsAddress(host: "::1", port: 9100)))
        await metrics.apply(MetricsSettings(enabled: false, listen: MetricsAddress(host: "::1", port: 9100)))
        await metrics.stop()
        #expect(exporter.events.withLock { $0 } == [
            "serve 127.0.0.1:9747", "close 127.0.0.1:9747", "serve [::1]:9100", "close [::1]:9100",
        ])

        let lines = Locked<[String]>([])
        let refused = DaemonMetrics(
            exporter: RecordingExporter(refuse: true), parts: try await Self.parts("raspberry-pi-4-no-battery"),
            log: { line in lines.withLock { $0.append(line) } })
        await refused.apply(MetricsSettings(enabled: true))
        #expect(lines.withLock { $0 } == ["cannot serve /metrics on 127.0.0.1:9747: Address already in use; carrying on without it"])
    }

    /// Pauses and resumes as the enforce run emits them; violations by the watch's action.
    @Test func theTallyCountsWhereEventsHappen() {
        let tally = WorkloadTally()
        func action(_ kind: EnforcementAction.Kind, _ name: String, _ reason: String) -> EnforcementAction {
            EnforcementAction(
                timestamp: 0, kind: kind, className: name, level: nil, reason: reason, lowPowerMode: nil, thermalState: nil,
                dryRun: false, targets: [])
        }
        tally.record(action(.pause, "builds", "lowPowerMode"))
        tally.record(action(.pause, "video", "thermal:fair"))
        tally.record(action(.pause, "builds", "rescan"))
        #expect(tally.pausedClasses == 2)
        tally.record(action(.resume, "builds", "recovered"))
        #expect(tally.pausedClasses == 1)
        tally.enforceStopped()
        #expect(tally.pausedClasses == 0)

        #expect(tally.violations == [.kill: 0, .throttle: 0, .report: 0])
        tally.recordViolation(Self.report(action: "throttle"))
        tally.recordViolation(Self.report(action: "throttle"))
        tally.recordViolation(Self.report(action: "kill"))
        #expect(tally.violations == [.kill: 1, .throttle: 2, .report: 0])
    }

    static func report(action: String) -> ResourceReport {
        ResourceReport(
            timestamp: Date(), processName: "spin", pid: 42, processStartTimeTicks: 1, path: nil, commandLine: nil,
            parentName: nil, parentPid: 1, uid: nil, userName: nil, cgroup: nil, osVersion: nil, hardwareModel: nil,
            fatal: action == "kill", limitPercent: 50, windowSeconds: 10, cpuSeconds: 9, observedSeconds: 10, action: action,
            dryRun: false, actionTaken: "held", terminationReason: nil, threads: [])
    }
}

/// A writable copy of a fixture machine, removed when released.
final class FixtureCopy {
    let path: String
    init(_ machine: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-metrics-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: DaemonMetricsTests.fixtures.appendingPathComponent(machine).path, toPath: path)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
