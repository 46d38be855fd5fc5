import JouleEnergy

/// How readily a workload class gives way, after Apple's guidance: defer work nobody is
/// waiting for at fair, reduce at serious, stop everything at critical.
public enum WorkloadLevel: String, Sendable, Hashable, CaseIterable {
    /// Pauses at thermal fair and in Low Power Mode (background transcodes, indexing, backups).
    case deferrable
    /// Pauses at thermal serious.
    case optional
    /// Pauses only at thermal critical; the level of a class that names none.
    case normal

    /// The thermal state at which this level pauses by default.
    public var defaultPauseAt: ThermalState {
        switch self {
        case .deferrable: .fair
        case .optional: .serious
        case .normal: .critical
        }
    }

    /// Whether this level pauses in Low Power Mode by default.
    public var defaultPauseInLowPowerMode: Bool { self == .deferrable }
}
