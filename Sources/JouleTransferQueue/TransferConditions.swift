import JouleHardware
import JouleEnergy

/// Which conditions hold a transfer back, from Joule's own readings: a pure function, so the
/// daemon can re-evaluate every waiting transfer on each engine, NetworkManager or netlink
/// change without touching a file.
public enum TransferConditions {
    /// What a transfer asked for.
    public struct Requirements: Sendable, Hashable {
        /// All of: on AC, unmetered, not in Low Power Mode, thermal at most `fair`, battery not
        /// low (NSURLSession's `discretionary`, WorkManager's charging + unmetered + not low).
        public var discretionary: Bool
        /// `--unmetered-only` (NSURLSession's `allowsCellularAccess = false`).
        public var unmeteredOnly: Bool
        /// `--require-ac`.
        public var requireAC: Bool
        /// Earliest begin time, Unix seconds; nil when it may start at once.
        public var beginAfter: Double?
        /// Bytes still to be written at the destination; nil when unknown (counted as 0, so
        /// only the reserve is asked for).
        public var remainingBytes: UInt64?

        public init(
            discretionary: Bool = false, unmeteredOnly: Bool = false, requireAC: Bool = false, beginAfter: Double? = nil,
            remainingBytes: UInt64? = nil
        ) {
            self.discretionary = discretionary
            self.unmeteredOnly = unmeteredOnly
            self.requireAC = requireAC
            self.beginAfter = beginAfter
            self.remainingBytes = remainingBytes
        }
    }

    /// The machine, as the engines and the network readers see it now.
    public struct Environment: Sendable, Hashable {
        /// Some line power source reports `online` (not the battery's status: a battery held
        /// at a charge threshold says "Not charging" on AC).
        public var lineOnline: Bool
        /// The composite battery's percentage; nil when there is no battery.
        public var batteryPercentage: Double?
        public var lowPowerMode: Bool
        public var thermalState: ThermalState
        /// Whether the network in use is metered (`NetworkMeteredness`).
        public var metered: Bool
        /// The destination file system's space; nil when unknown (storage is then not held
        /// against the transfer).
        public var space: FileSpace?
        /// Unix seconds.
        public var now: Double

        public init(
            lineOnline: Bool, batteryPercentage: Double?, lowPowerMode: Bool, thermalState: ThermalState, metered: Bool,
            space: FileSpace?, now: Double
        ) {
            self.lineOnline = lineOnline
            self.batteryPercentage = batteryPercentage
            self.lowPowerMode = lowPowerMode
            self.thermalState = thermalState
            self.metered = metered
            self.space = space
            self.now = now
        }
    }

    /// Free and total bytes of a file system (`FileSystem.freeSpace`).
    public struct FileSpace: Sendable, Hashable {
        public var freeBytes: UInt64
        public var totalBytes: UInt64

        public init(freeBytes: UInt64, totalBytes: UInt64) {
            self.freeBytes = freeBytes
            self.totalBytes = totalBytes
        }
    }

    /// The battery is low at or below this composite percentage.
    public static let lowBatteryPercentage = 15.0
    /// The share of the file system that must stay free beyond the transfer's remaining bytes.
    public static let storageReserve = 0.05

    /// The conditions `requirements` has that `environment` does not meet, in `TransferCondition`
    /// order (never `.batch`, which needs the whole batch). Empty: the transfer may run.
    public static func unmet(_ requirements: Requirements, in environment: Environment) -> [TransferCondition] {
        var unmet: [TransferCondition] = []
        let discretionary = requirements.discretionary
        if (discretionary || requirements.requireAC) && !environment.lineOnline { unmet.append(.ac) }
        if (discretionary || requirements.unmeteredOnly) && environment.metered { unmet.append(.unmetered) }
        if discretionary, let percentage = environment.batteryPercentage, percentage <= lowBatteryPercentage {
            unmet.append(.battery)
        }
        if discretionary && environment.lowPowerMode { unmet.append(.lowPowerMode) }
        if discretionary ? environment.thermalState > .fair : environment.thermalState >= .critical { unmet.append(.thermal) }
        if let space = environment.space, !hasRoom(for: requirements.remainingBytes ?? 0, in: space) { unmet.append(.storage) }
        if let beginAfter = requirements.beginAfter, environment.now < beginAfter { unmet.append(.beginAfter) }
        return unmet
    }

    /// Free ≥ remaining + 5 % of the total, without overflow.
    public static func hasRoom(for remainingBytes: UInt64, in space: FileSpace) -> Bool {
        let reserve = UInt64((Double(space.totalBytes) * storageReserve).rounded(.up))
        let (needed, overflow) = remainingBytes.addingReportingOverflow(reserve)
        return !overflow && space.freeBytes >= needed
    }

    /// Whether the transfer could ever fit: a remaining size beyond what the file system could
    /// hold even when empty never will, which is an error to report rather than a wait.
    public static func couldEverFit(_ remainingBytes: UInt64, in space: FileSpace) -> Bool {
        hasRoom(for: remainingBytes, in: FileSpace(freeBytes: space.totalBytes, totalBytes: space.totalBytes))
    }
}

extension TransferConditions.FileSpace {
    /// From the hardware layer's statvfs reading.
    public init(_ space: FileSystem.Space) {
        self.init(freeBytes: space.free, totalBytes: space.total)
    }
}

extension TransferConditions.Environment {
    /// The power and thermal half from an engine snapshot: a line source online (never the
    /// battery's status), the composite percentage (nil without a battery), Low Power Mode and
    /// the thermal state as the engines decided them.
    public init(report: StatusReport, metered: Bool, space: TransferConditions.FileSpace?, now: Double) {
        self.init(
            lineOnline: report.supplies.lineOnline, batteryPercentage: report.supplies.composite?.percentage,
            lowPowerMode: report.lowPowerMode, thermalState: report.thermalState, metered: metered, space: space, now: now)
    }
}
