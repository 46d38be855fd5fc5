import JouleHardware

/// Low Power Mode, the battery warning level and battery events over time.
///
/// Low Power Mode turns on by itself when the composite discharges to `lowPercent`, and off by
/// itself once charging reaches `restorePercent`, but only if it had turned itself on (as iOS
/// does). A manual override wins while set; clearing it returns to the automatic rule.
public struct PowerStateMachine: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var lowPercent = LowPowerRule.thresholdPercent
        public var restorePercent = 80.0
        public var warningLowPercent = BatteryWarningLevel.lowPercent
        public var warningCriticalPercent = BatteryWarningLevel.criticalPercent
        public var warningActionPercent = BatteryWarningLevel.actionPercent
        /// A battery's level must move this many points before `batteryChanged` is sent again.
        public var percentageStep = 1.0

        public init() {}

        /// The warning level under these thresholds.
        public func warningLevel(_ composite: CompositeBattery?) -> BatteryWarningLevel {
            BatteryWarningLevel.evaluate(
                composite, low: warningLowPercent, critical: warningCriticalPercent, action: warningActionPercent)
        }

        /// Low Power Mode at one instant under these thresholds.
        public func lowPowerMode(_ supplies: PowerSupplies, override: LowPowerOverride) -> Bool {
            LowPowerRule.evaluate(supplies, override: override, thresholdPercent: lowPercent)
        }
    }

    public var configuration: Configuration
    public private(set) var lowPowerMode = false
    public private(set) var warningLevel = BatteryWarningLevel.none
    public private(set) var override = LowPowerOverride.auto
    /// Whether Low Power Mode is on because the automatic rule turned it on.
    public private(set) var isAutomaticallyOn = false
    /// Whether the user chose power-profiles-daemon's power-saver profile (not a hold of
    /// joule's): without a manual override, Low Power Mode follows it.
    public private(set) var profileRequest = false

    /// Why Low Power Mode is what it is: the user's override, the power-saver profile, or
    /// the battery rule (also when it is simply off).
    public var source: LowPowerModeSource {
        if override != .auto { return .manual }
        if profileRequest && !isAutomaticallyOn { return .powerProfilesDaemon }
        return .auto
    }
    /// Smoothed estimates per battery, from the last update.
    public private(set) var estimates: [String: TimeEstimator.Estimate] = [:]
    /// When line power last changed, for callers that poll faster after it.
    public private(set) var lastLineChange: Double?

    private var previous: PowerSupplies?
    private var announced: [String: (state: PowerSupplyState, percentage: Double?)] = [:]
    private var estimators: [String: TimeEstimator] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sets the starting state from a first reading without announcing anything, since the
    /// snapshot that precedes all events already says it.
    public mutating func start(_ supplies: PowerSupplies, override: LowPowerOverride, at time: Double) {
        self.override = override
        isAutomaticallyOn = automaticOn(supplies.composite)
        lowPowerMode = Self.decide(override: override, automatic: isAutomaticallyOn || profileRequest)
        warningLevel = warning(supplies.composite)
        previous = supplies
        for battery in supplies.batteries + supplies.peripherals {
            announced[battery.name] = (battery.state, battery.percentage)
        }
        _ = estimate(supplies, at: time)
    }

    /// Feeds one reading; returns the events it causes, in a stable order. `profileRequest`
    /// nil keeps the power-saver choice as it was.
    public mutating func update(
        _ supplies: PowerSupplies, override newOverride: LowPowerOverride, profileRequest newRequest: Bool? = nil, at time: Double
    ) -> [EnergyEvent] {
        guard let previous else {
            if let newRequest { profileRequest = newRequest }
            start(supplies, override: newOverride, at: time)
            return []
        }
        var events: [EnergyEvent] = []

        // Sources that came or went.
        let kinds = Self.kinds(of: supplies), oldKinds = Self.kinds(of: previous)
        for (name, kind) in oldKinds.sorted(by: { $0.key < $1.key }) where kinds[name] == nil {
            events.append(.powerSourceRemoved(name: name, kind: kind))
            announced[name] = nil
            estimators[name] = nil
        }
        for (name, kind) in kinds.sorted(by: { $0.key < $1.key }) where oldKinds[name] == nil {
            events.append(.powerSourceAdded(name: name, kind: kind))
        }

        // Line power.
        let oldLines = Dictionary(previous.lineSources.map { ($0.name, $0.online) }, uniquingKeysWith: { a, _ in a })
        for line in supplies.lineSources {
            if let old = oldLines[line.name], old != line.online {
                events.append(.lineChanged(name: line.name, online: line.online))
            }
        }
        if supplies.lineOnline != previous.lineOnline {
            lastLineChange = time
            for name in estimators.keys { estimators[name]?.lineChanged(at: time) }
        }

        // Batteries, with smoothed estimates.
        let current = estimate(supplies, at: time)
        for battery in supplies.batteries + supplies.peripherals {
            let kind: PowerSourceKind = battery.isPeripheral ? .peripheral : .battery
            let last = announced[battery.name]
            let moved: Bool
            switch (last?.percentage, battery.percentage) {
            case let (old?, new?): moved = abs(new - old) >= configuration.percentageStep
            case (nil, nil): moved = false
            default: moved = true
            }
            if last == nil || last?.state != battery.state || moved {
                // A battery that just appeared was announced by powerSourceAdded.
                if last != nil {
                    let estimate = current[battery.name]
                    events.append(.batteryChanged(BatteryUpdate(
                        name: battery.name, kind: kind, state: battery.state, percentage: battery.percentage,
                        energyRateW: estimate?.rateW ?? battery.energyRateW,
                        timeToEmptyS: estimate?.timeToEmptyS, timeToFullS: estimate?.timeToFullS)))
                }
                announced[battery.name] = (battery.state, battery.percentage)
            }
        }

        // Warning level.
        let level = warning(supplies.composite)
        if level != warningLevel {
            events.append(.warningLevelChanged(level: level, previous: warningLevel))
            warningLevel = level
        }

        // Low Power Mode.
        let wasOn = lowPowerMode
        var reason: String?
        if newOverride != override {
            reason = switch newOverride {
            case .on: "manual-on"
            case .off: "manual-off"
            case .auto: "override-cleared"
            }
            override = newOverride
            if newOverride == .auto { isAutomaticallyOn = automaticOn(supplies.composite) }
        }
        if let newRequest, newRequest != profileRequest {
            profileRequest = newRequest
            if override == .auto { reason = reason ?? (newRequest ? "power-saver-profile" : "power-saver-profile-left") }
        }
        if override == .auto {
            if !isAutomaticallyOn && automaticOn(supplies.composite) {
                isAutomaticallyOn = true
                reason = reason ?? "battery-low"
            } else if isAutomaticallyOn && restored(supplies.composite) {
                isAutomaticallyOn = false
                reason = reason ?? "charged"
            }
        }
        lowPowerMode = Self.decide(override: override, automatic: isAutomaticallyOn || profileRequest)
        if lowPowerMode != wasOn, let reason {
            events.append(.powerStateDidChange(lowPowerMode: lowPowerMode, reason: reason))
        }

        self.previous = supplies
        return events
    }

    private static func decide(override: LowPowerOverride, automatic: Bool) -> Bool {
        LowPowerRule.decide(override: override, automatic: automatic)
    }

    private func automaticOn(_ composite: CompositeBattery?) -> Bool {
        LowPowerRule.automatic(composite, thresholdPercent: configuration.lowPercent)
    }

    /// Charged enough to end automatic Low Power Mode: charging (or done charging) at the
    /// restore level.
    private func restored(_ composite: CompositeBattery?) -> Bool {
        guard let composite, let percentage = composite.percentage else { return false }
        switch composite.state {
        case .charging, .full, .notCharging: return percentage >= configuration.restorePercent
        default: return false
        }
    }

    private func warning(_ composite: CompositeBattery?) -> BatteryWarningLevel {
        configuration.warningLevel(composite)
    }

    private mutating func estimate(_ supplies: PowerSupplies, at time: Double) -> [String: TimeEstimator.Estimate] {
        var result: [String: TimeEstimator.Estimate] = [:]
        for battery in supplies.batteries {
            var estimator = estimators[battery.name] ?? TimeEstimator()
            result[battery.name] = estimator.update(
                state: battery.state, energyWh: battery.energyWh, energyFullWh: battery.energyFullWh,
                driverRateW: battery.energyRateW, at: time)
            estimators[battery.name] = estimator
        }
        estimates = result
        return result
    }

    private static func kinds(of supplies: PowerSupplies) -> [String: PowerSourceKind] {
        var kinds: [String: PowerSourceKind] = [:]
        for battery in supplies.batteries { kinds[battery.name] = .battery }
        for battery in supplies.peripherals { kinds[battery.name] = .peripheral }
        for line in supplies.lineSources { kinds[line.name] = .line }
        return kinds
    }
}
