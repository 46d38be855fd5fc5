import Foundation
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleWorkloads
@testable import JouleMetrics
import JouleTesting
import Testing

/// The registry glue: fixed samples in, the text format out, read back by real parsers.
@Suite struct MetricsExpositionTests {
    static let packageRoot = CLIPaths.packageRoot

    /// Every part of the daemon running, every figure known.
    static let full = MetricsSample(
        lowPowerMode: true, lowPowerModeSource: .manual, thermalState: .serious,
        energy: EnergySnapshot(
            timestamp: 1_700_000_000, source: .rapl, origin: "rapl:psys", systemWatts: 7.25,
            domains: [.init(name: "psys", joules: 1234.5), .init(name: "package-0", joules: 1000), .init(name: "package-0/core", joules: 250.25)],
            unitJoules: ["user@1000.service": 42, "sshd.service": 0.5]),
        pausedClasses: 1, violations: [.kill: 0, .throttle: 2, .report: 0],
        transfers: ["waiting": 2, "running": 1, "suspended": 0, "retrying": 0, "completed": 3, "failed": 0, "cancelled": 0],
        transferBytes: 123_456_789,
        beacons: [.init(name: "office", inside: true, rssiDBm: -65.5), .init(name: "lab", inside: false)],
        throttling: RaspberryPiThrottling(bits: 0x50005))

    static let fullSamples = """
        joule_low_power_mode_enabled 1.0
        joule_low_power_mode_info{source="manual"} 1.0
        joule_thermal_state 2.0
        joule_thermal_state_info{state="serious"} 1.0
        joule_energy_joules_total{domain="package-0"} 1000.0
        joule_energy_joules_total{domain="package-0/core"} 250.25
        joule_energy_joules_total{domain="psys"} 1234.5
        joule_power_watts{source="rapl"} 7.25
        joule_process_energy_joules_total{unit="sshd.service"} 0.5
        joule_process_energy_joules_total{unit="user@1000.service"} 42.0
        joule_enforcer_paused_classes 1.0
        joule_cpu_monitor_violations_total{action="kill"} 0
        joule_cpu_monitor_violations_total{action="report"} 0
        joule_cpu_monitor_violations_total{action="throttle"} 2
        joule_transfers{state="cancelled"} 0.0
        joule_transfers{state="completed"} 3.0
        joule_transfers{state="failed"} 0.0
        joule_transfers{state="retrying"} 0.0
        joule_transfers{state="running"} 1.0
        joule_transfers{state="suspended"} 0.0
        joule_transfers{state="waiting"} 2.0
        joule_transfer_bytes_total 123456789
        joule_beacon_region_inside{region="lab"} 0.0
        joule_beacon_region_inside{region="office"} 1.0
        joule_beacon_rssi_dbm{region="office"} -65.5
        joule_throttled{reason="arm_frequency_capped"} 0.0
        joule_throttled{reason="arm_frequency_capped_since_boot"} 0.0
        joule_throttled{reason="soft_temp_limit"} 0.0
        joule_throttled{reason="soft_temp_limit_since_boot"} 0.0
        joule_throttled{reason="throttled"} 1.0
        joule_throttled{reason="throttled_since_boot"} 1.0
        joule_throttled{reason="under_voltage"} 1.0
        joule_throttled{reason="under_voltage_since_boot"} 1.0

        """

    static let familyOrder = [
        "joule_low_power_mode_enabled gauge", "joule_low_power_mode_info gauge", "joule_thermal_state gauge",
        "joule_thermal_state_info gauge", "joule_energy_joules_total counter", "joule_power_watts gauge",
        "joule_process_energy_joules_total counter", "joule_enforcer_paused_classes gauge",
        "joule_cpu_monitor_violations_total counter", "joule_transfers gauge", "joule_transfer_bytes_total counter",
        "joule_beacon_region_inside gauge", "joule_beacon_rssi_dbm gauge", "joule_throttled gauge",
    ]

    static func samples(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0 + "\n" }.joined()
    }

    static func types(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.dropFirst("# TYPE ".count)) }
    }

    /// Every family in the README's order with HELP and TYPE; series sorted; the same text
    /// each time.
    @Test func everyFigure() {
        let text = MetricsExposition.text(Self.full)
        #expect(Self.samples(text) == Self.fullSamples)
        #expect(Self.types(text) == Self.familyOrder)
        let helps = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }
        #expect(helps.count == Self.familyOrder.count && helps.allSatisfy { $0.split(separator: " ").count > 4 })
        #expect(MetricsExposition.text(Self.full) == text)
    }

    /// Nothing but the engines: the parts the daemon does not run are absent, never 0.
    @Test func onlyTheEngines() {
        let text = MetricsExposition.text(MetricsSample())
        #expect(Self.samples(text) == """
            joule_low_power_mode_enabled 0.0
            joule_low_power_mode_info{source="auto"} 1.0
            joule_thermal_state 0.0
            joule_thermal_state_info{state="nominal"} 1.0

            """)
        #expect(!text.contains("joule_power_watts") && !text.contains("joule_throttled") && !text.contains("joule_transfers"))
    }

    /// Unknown power (nil) has no series; a non-finite or negative figure is dropped rather
    /// than written as NaN or as a counter going backwards.
    @Test func unknownAndImpossibleFiguresAreLeftOut() {
        let sample = MetricsSample(
            energy: EnergySnapshot(
                timestamp: 0, source: .model, origin: "model", systemWatts: nil,
                domains: [.init(name: "package-0", joules: .nan), .init(name: "core", joules: -1), .init(name: "psys", joules: .infinity)],
                unitJoules: ["a.service": .nan]),
            transferBytes: -5,
            beacons: [.init(name: "door", inside: true, rssiDBm: .infinity)])
        let text = MetricsExposition.text(sample)
        for name in ["joule_power_watts", "joule_energy_joules_total", "joule_process_energy_joules_total", "joule_transfer_bytes_total", "joule_beacon_rssi_dbm"] {
            #expect(!text.contains(name), "\(name) in \(text)")
        }
        #expect(text.contains("joule_beacon_region_inside{region=\"door\"} 1.0"))
    }

    /// Label values are escaped as the format says, and come back as they went in.
    @Test(.enabled("needs python3-prometheus-client (scripts/install-deps.sh)") { await PrometheusTools.hasPythonClient })
    func awkwardLabelValuesRoundTrip() async throws {
        let name = "hall \"B\"\\west\nwing"
        let text = MetricsExposition.text(MetricsSample(beacons: [.init(name: name, inside: true, rssiDBm: -70)]))
        #expect(text.contains(#"joule_beacon_region_inside{region="hall \"B\"\\west\nwing"} 1.0"#))
        let families = try await PrometheusTools.parse(text)
        let inside = families.first { $0.name == "joule_beacon_region_inside" }
        #expect(inside?.samples == [PrometheusTools.Sample(name: "joule_beacon_region_inside", labels: ["region": name], value: 1)])
    }

    /// prometheus_client reads every family back with its type, HELP and values.
    @Test(.enabled("needs python3-prometheus-client (scripts/install-deps.sh)") { await PrometheusTools.hasPythonClient })
    func pythonClientReadsItBack() async throws {
        let families = try await PrometheusTools.parse(MetricsExposition.text(Self.full))
        #expect(families.count == Self.familyOrder.count)
        #expect(families.allSatisfy { !$0.help.isEmpty })
        let counters = families.filter { $0.type == "counter" }.map(\.name)
        #expect(counters == ["joule_energy_joules", "joule_process_energy_joules", "joule_cpu_monitor_violations", "joule_transfer_bytes"])
        let samples = families.flatMap(\.samples)
        #expect(samples.contains(PrometheusTools.Sample(name: "joule_power_watts", labels: ["source": "rapl"], value: 7.25)))
        #expect(samples.contains(PrometheusTools.Sample(name: "joule_transfer_bytes_total", labels: [:], value: 123_456_789)))
        #expect(samples.contains(PrometheusTools.Sample(name: "joule_throttled", labels: ["reason": "under_voltage_since_boot"], value: 1)))
        #expect(samples.count == Self.fullSamples.split(separator: "\n").count)
    }

    /// promtool's lint (naming, units, HELP) finds nothing to say.
    @Test(.enabled(if: PrometheusTools.promtool(packageRoot: CLIPaths.packageRoot) != nil, "needs promtool (scripts/fetch-promtool.sh)"))
    func promtoolFindsNothing() async throws {
        let promtool = try #require(PrometheusTools.promtool(packageRoot: Self.packageRoot))
        for sample in [Self.full, MetricsSample()] {
            let result = try await PrometheusTools.check(MetricsExposition.text(sample), promtool: promtool)
            #expect(result.status == 0 && result.output.isEmpty, "promtool: \(result.output)")
        }
    }
}

enum CLIPaths {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
