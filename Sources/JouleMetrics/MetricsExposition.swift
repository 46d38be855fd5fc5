import JouleHardware
import JouleWorkloads
import JouleTransferQueue
import Prometheus

/// A `MetricsSample` in Prometheus's text format, through swift-prometheus's registry. Each
/// family has a registry of its own and they are written in one fixed order (the README's
/// table), series sorted, so the text, and a textfile's diff, does not reshuffle. A figure
/// that is unknown, not finite, or (for a counter) negative is left out, never written as 0.
enum MetricsExposition {
    static func text(_ sample: MetricsSample) -> String {
        var text = ""
        var buffer: [UInt8] = []
        for family in families(sample) {
            buffer.removeAll(keepingCapacity: true)
            family.registry.emit(into: &buffer)
            // The registry keeps a family's series in a dictionary: sorted here, so their order
            // is stable too. HELP and TYPE come first, as emitted.
            let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
            for line in lines where line.hasPrefix("#") { text += line + "\n" }
            for line in lines.filter({ !$0.hasPrefix("#") }).sorted() { text += line + "\n" }
        }
        return text
    }

    /// One metric name, its HELP text and its series.
    struct Family {
        let name: String
        let help: String
        let registry = PrometheusCollectorRegistry()

        init(_ name: String, _ help: String) {
            self.name = name
            self.help = help
        }

        func gauge(_ value: Double?, _ labels: [(String, String)] = []) {
            guard let value, value.isFinite else { return }
            registry.makeGauge(name: name, labels: labels, help: help).set(value)
        }

        func gauge(_ value: Bool, _ labels: [(String, String)] = []) { gauge(value ? 1 : 0, labels) }

        func counter(_ value: Double?, _ labels: [(String, String)] = []) {
            guard let value, value.isFinite, value >= 0 else { return }
            registry.makeCounter(name: name, labels: labels, help: help).increment(by: value)
        }

        func counter(_ value: Int64?, _ labels: [(String, String)] = []) {
            guard let value, value >= 0 else { return }
            registry.makeCounter(name: name, labels: labels, help: help).increment(by: value)
        }
    }

    static func families(_ sample: MetricsSample) -> [Family] {
        var families: [Family] = []
        func family(_ name: String, _ help: String, _ fill: (Family) -> Void) {
            let family = Family(name, help)
            fill(family)
            families.append(family)
        }

        family("joule_low_power_mode_enabled", "Whether Low Power Mode is on (1) or off (0).") {
            $0.gauge(sample.lowPowerMode)
        }
        family(
            "joule_low_power_mode_info",
            "Why Low Power Mode is as it is: auto (the battery rule), manual, or power-profiles-daemon (the user chose power-saver); always 1."
        ) {
            $0.gauge(1, [("source", sample.lowPowerModeSource.rawValue)])
        }
        family("joule_thermal_state", "The thermal state: 0 nominal, 1 fair, 2 serious, 3 critical.") {
            $0.gauge(Double(sample.thermalState.rawValue))
        }
        family("joule_thermal_state_info", "The thermal state by name (nominal, fair, serious, critical); always 1.") {
            $0.gauge(1, [("state", sample.thermalState.description)])
        }
        family(
            "joule_energy_joules_total",
            "Energy a RAPL domain used since the daemon began measuring it, in joules, corrected for counter wraps. Domains overlap (a package contains its core): never add them."
        ) { metric in
            for domain in sample.energy?.domains ?? [] { metric.counter(domain.joules, [("domain", domain.name)]) }
        }
        family("joule_power_watts", "The host's power over the last measured interval, in watts, by what measured it (rapl or battery).") { metric in
            if let energy = sample.energy { metric.gauge(energy.systemWatts, [("source", energy.source.rawValue)]) }
        }
        family(
            "joule_process_energy_joules_total",
            "Host energy attributed to a systemd unit since the daemon started, in joules, by its share of busy CPU time."
        ) { metric in
            for (unit, joules) in (sample.energy?.unitJoules ?? [:]).sorted(by: { $0.key < $1.key }) {
                metric.counter(joules, [("unit", unit)])
            }
        }
        family("joule_enforcer_paused_classes", "Workload classes of the enforce policy paused now.") {
            $0.gauge(sample.pausedClasses.map(Double.init))
        }
        family(
            "joule_cpu_monitor_violations_total",
            "CPU monitor violations handled since the daemon started, by the watch's action (kill, throttle or report)."
        ) { metric in
            for action in CPUMonitorAction.allCases {
                metric.counter(sample.violations?[action].map(Int64.init), [("action", action.rawValue)])
            }
        }
        family("joule_transfers", "Deferred transfers in the daemon's queue, by state.") { metric in
            for state in TransferState.names {
                metric.gauge(sample.transfers?[state].map(Double.init), [("state", state)])
            }
        }
        family(
            "joule_transfer_bytes_total",
            "Bytes deferred transfers moved since the daemon started: downloaded and synced to disk, or uploaded."
        ) {
            $0.counter(sample.transferBytes)
        }
        family("joule_beacon_region_inside", "Whether the daemon's beacon monitor is inside the region (1) or outside (0).") { metric in
            for region in sample.beacons { metric.gauge(region.inside, [("region", region.name)]) }
        }
        family(
            "joule_beacon_rssi_dbm",
            "Trimmed mean RSSI of the region's beacons over the last 20 seconds, in dBm; absent while outside."
        ) { metric in
            for region in sample.beacons { metric.gauge(region.rssiDBm, [("region", region.name)]) }
        }
        family(
            "joule_throttled",
            "Raspberry Pi firmware flags (get_throttled): 1 while the condition holds, or for *_since_boot once it has happened since boot."
        ) { metric in
            guard let flags = sample.throttling else { return }
            for condition in RaspberryPiThrottling.Condition.allCases {
                metric.gauge(flags.isActive(condition), [("reason", condition.label)])
            }
            for condition in RaspberryPiThrottling.Condition.allCases {
                metric.gauge(flags.hasOccurred(condition), [("reason", condition.label + "_since_boot")])
            }
        }
        family("joule_sleeps_total", "Sleeps (suspends) the daemon accounted since it started.") {
            $0.counter(sample.sleeps.map(Int64.init))
        }
        family(
            "joule_sleep_drain_percent_per_hour",
            "How fast the last sleep drained the battery, in percent of its full energy per hour (negative while charging); absent before the first sleep."
        ) {
            $0.gauge(sample.lastSleepDrainPercentPerHour)
        }
        return families
    }
}
