import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleTransferQueue
import JouleApps

/// What `joule daemon` runs, read from YAML (`/etc/joule/joule.yaml`, or
/// `$XDG_CONFIG_HOME/joule/joule.yaml` with `--session`). A missing file means these defaults.
/// The top-level keys are binding (scripts write them): `lowPowerMode`, `enforce`,
/// `cpuMonitor`, `beacons`, `transfers`, `metrics`, `battery`, and `apps` for a later part of the daemon.
package struct DaemonConfiguration: Sendable, Equatable {
    /// Who may carry out Low Power Mode.
    package enum Actuator: String, Sendable, Hashable, CaseIterable {
        /// A power-saver hold on power-profiles-daemon (or tlp-pd, tuned-ppd) when it runs.
        case powerProfilesDaemon = "power-profiles-daemon"
        /// joule's own sysfs knobs, when no such service runs.
        case knobs
    }

    /// One `cpu-monitor` watch.
    package struct CPUWatch: Sendable, Equatable {
        package var configuration: CPUMonitorConfiguration
        /// Where its reports go; nil is the daemon's state directory's `reports`.
        package var reports: String?

        package init(configuration: CPUMonitorConfiguration, reports: String? = nil) {
            self.configuration = configuration
            self.reports = reports
        }
    }

    /// One beacon region monitor.
    package struct BeaconMonitor: Sendable, Equatable {
        package var regions: [BeaconRegion]
        package var exitTimeout: Duration
        /// Run with /bin/sh -c on each region event, with the `beacons monitor --exec` variables.
        package var exec: String?
        /// The HCI adapter (`hci0`); nil is the first one up.
        package var adapter: String?
        /// How the radio is reached, as `beacons --transport`.
        package var transport: BeaconTransportKind

        package init(
            regions: [BeaconRegion], exitTimeout: Duration = .seconds(10), exec: String? = nil, adapter: String? = nil,
            transport: BeaconTransportKind = .auto
        ) {
            self.regions = regions
            self.exitTimeout = exitTimeout
            self.exec = exec
            self.adapter = adapter
            self.transport = transport
        }
    }

    /// Where it was read from; nil when no file existed (defaults).
    package var file: String?
    package var power = PowerStateMachine.Configuration()
    package var actuators: Set<Actuator> = Set(Actuator.allCases)
    package var knobs = LowPowerKnobConfiguration()
    package var enforce: EnforcePolicy?
    package var cpuMonitor: [CPUWatch] = []
    package var beacons: [BeaconMonitor] = []
    package var transfers = TransferSettings()
    /// `location:`: the source of `org.joule.Location1`'s fixes.
    package var location = LocationSettings()
    /// `regions:`: circles the daemon monitors itself on that source, each with an optional
    /// hook run on entry and exit.
    package var regions: [ConfiguredRegion] = []
    package var metrics = MetricsSettings()
    /// `battery.chargeLimit`: the charge limit the daemon holds; nil leaves charging alone.
    package var chargeLimit: ChargeLimitRequest?
    /// `battery.optimizedCharging`: hold at the limit's end (80 % without a limit) only while
    /// the learnt routine says the charger stays, to be full by the usual unplug.
    package var optimizedCharging = false
    /// `apps:`: desktop apps managed by their scopes, by application ID.
    package var apps: [DesktopAppRule] = []

    package init() {}

    /// The config file for `--system` or `--session` when none is named.
    package static func defaultPath(session: Bool, environment: [String: String]) -> String? {
        guard session else { return "/etc/joule/joule.yaml" }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/joule/joule.yaml" }
        return environment["HOME"].map { $0 + "/.config/joule/joule.yaml" }
    }

    /// Reads `path`; a file that does not exist gives the defaults unless the user named it
    /// (`required`), any other problem throws.
    package static func load(path: String, required: Bool = false) throws(ConfigurationError) -> DaemonConfiguration {
        guard required || FileSystem.kind(of: path) != nil else { return DaemonConfiguration() }
        var configuration = try parse(yaml: try YAMLReader.read(path: path), file: path)
        configuration.file = path
        return configuration
    }

    /// Parses config text; `file` names it in errors and resolves a relative `enforce.policy`.
    package static func parse(yaml: String, file: String) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        if let root = try YAMLReader.compose(yaml: yaml, file: file) {
            configuration = try DaemonConfigurationReader(yaml: YAMLReader(file: file)).configuration(root)
        }
        configuration.file = file
        return configuration
    }
}
