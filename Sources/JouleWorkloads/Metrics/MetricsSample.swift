import JouleHardware
import JouleEnergy

/// What `/metrics` and `joule export` show, gathered at one scrape: only what node_exporter
/// cannot know. A part the daemon does not run, or a figure nothing measures, is nil and its
/// metrics are left out, never shown as 0.
public struct MetricsSample: Sendable, Equatable {
    /// One beacon region of the daemon's monitors.
    public struct BeaconRegionReading: Sendable, Equatable {
        public var name: String
        public var inside: Bool
        /// The region's beacons' recent RSSI, trimmed mean in dBm; nil outside or with none heard.
        public var rssiDBm: Double?

        public init(name: String, inside: Bool, rssiDBm: Double? = nil) {
            self.name = name
            self.inside = inside
            self.rssiDBm = rssiDBm
        }
    }

    public var lowPowerMode: Bool
    public var lowPowerModeSource: LowPowerModeSource
    public var thermalState: ThermalState
    /// The host's energy; nil when the daemon has no energy meter.
    public var energy: EnergySnapshot?
    /// How many classes of the enforce policy are paused; nil without an enforce policy.
    public var pausedClasses: Int?
    /// `cpuMonitor` violations since the daemon started, by the watch's action; nil without watches.
    public var violations: [CPUMonitorAction: Int]?
    /// Transfers in the queue by state (`TransferState.names`); nil without the queue.
    public var transfers: [String: Int]?
    /// Bytes the queue's attempts moved since the daemon started; nil without the queue.
    public var transferBytes: Int64?
    /// Each region of the beacon monitors, once by name.
    public var beacons: [BeaconRegionReading]
    /// The Raspberry Pi firmware's flags; nil on other machines.
    public var throttling: RaspberryPiThrottling?
    /// Sleeps the daemon accounted since it started; nil when it cannot follow logind.
    public var sleeps: Int?
    /// The last accounted sleep's drain, percent of the full battery per hour; nil before the
    /// first sleep or when it was unknown.
    public var lastSleepDrainPercentPerHour: Double?

    public init(
        lowPowerMode: Bool = false, lowPowerModeSource: LowPowerModeSource = .auto, thermalState: ThermalState = .nominal,
        energy: EnergySnapshot? = nil, pausedClasses: Int? = nil, violations: [CPUMonitorAction: Int]? = nil,
        transfers: [String: Int]? = nil, transferBytes: Int64? = nil, beacons: [BeaconRegionReading] = [],
        throttling: RaspberryPiThrottling? = nil, sleeps: Int? = nil, lastSleepDrainPercentPerHour: Double? = nil
    ) {
        self.lowPowerMode = lowPowerMode
        self.lowPowerModeSource = lowPowerModeSource
        self.thermalState = thermalState
        self.energy = energy
        self.pausedClasses = pausedClasses
        self.violations = violations
        self.transfers = transfers
        self.transferBytes = transferBytes
        self.beacons = beacons
        self.throttling = throttling
        self.sleeps = sleeps
        self.lastSleepDrainPercentPerHour = lastSleepDrainPercentPerHour
    }
}
