import JouleEnergy

/// A named group of work that pauses and resumes together.
public struct WorkloadClass: Sendable, Hashable {
    public var name: String
    public var level: WorkloadLevel
    public var selectors: [WorkloadSelector]
    /// The thermal state from which the class pauses; nil never pauses for heat.
    public var pauseAt: ThermalState?
    public var pauseInLowPowerMode: Bool

    public init(
        name: String, level: WorkloadLevel, selectors: [WorkloadSelector],
        pauseAt: ThermalState?? = nil, pauseInLowPowerMode: Bool? = nil
    ) {
        self.name = name
        self.level = level
        self.selectors = selectors
        self.pauseAt = pauseAt ?? level.defaultPauseAt
        self.pauseInLowPowerMode = pauseInLowPowerMode ?? level.defaultPauseInLowPowerMode
    }

    /// Why the class must be paused in this state, or nil when it may run. Heat comes first:
    /// a class paused for both reasons names the thermal state.
    public func pauseCause(lowPowerMode: Bool, thermalState: ThermalState) -> PauseCause? {
        if let pauseAt, thermalState >= pauseAt { return .thermal(thermalState) }
        if pauseInLowPowerMode && lowPowerMode { return .lowPowerMode }
        return nil
    }
}
