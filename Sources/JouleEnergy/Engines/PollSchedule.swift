import JouleHardware

/// How often the engines read hardware. An energy tool's own wakeups count, so reads are
/// slow while nothing is near a threshold and fast only where a change is likely: after
/// line power changes, while a time estimate is being formed, near a battery threshold, near
/// a thermal threshold, and while a thermal change awaits confirmation. UPower polls every
/// 30 s, every 5 s while estimating, and every second for 5 s after line power changes.
public struct PollSchedule: Sendable, Hashable {
    /// One interval for everything (`joule watch --interval`), overriding the adaptive rules.
    public var fixedInterval: Duration?
    public var powerStable: Duration = .seconds(30)
    public var powerEstimating: Duration = .seconds(5)
    public var powerAfterLineChange: Duration = .seconds(1)
    public var afterLineChangeWindow: Duration = .seconds(5)
    public var powerNearThreshold: Duration = .seconds(5)
    /// Within this many percentage points of a battery threshold counts as near.
    public var nearThresholdPercent = 1.0
    /// As UPower's battery poll: far from every threshold, one wakeup in 30 s reads both
    /// (see `coalescing`); within `thermalNearWithinC` the 2 s poll takes over.
    public var thermalFar: Duration = .seconds(30)
    public var thermalNear: Duration = .seconds(2)
    /// Within this many °C of a thermal threshold counts as near.
    public var thermalNearWithinC = 5.0
    /// The confirming re-read of a thermal change (the debounce). A glitch is one bad sample,
    /// so an immediate second sample catches it; kept this short so a real change is still
    /// announced within one poll interval.
    public var thermalConfirm: Duration = .milliseconds(5)

    /// A read due within this much of another wakeup is done in that wakeup: two timers
    /// 30 s apart but out of phase would wake twice as often.
    public var coalescing: Duration = .seconds(5)

    public init(fixedInterval: Duration? = nil) {
        self.fixedInterval = fixedInterval
    }

    public func powerInterval(_ machine: PowerStateMachine, supplies: PowerSupplies?, now: Double) -> Duration {
        if let fixedInterval { return fixedInterval }
        if let change = machine.lastLineChange, now < change + afterLineChangeWindow { return powerAfterLineChange }
        if machine.estimates.values.contains(where: \.isEstimating) { return powerEstimating }
        if let percentage = supplies?.composite?.percentage {
            let configuration = machine.configuration
            let thresholds = [
                configuration.lowPercent, configuration.restorePercent, configuration.warningLowPercent,
                configuration.warningCriticalPercent, configuration.warningActionPercent,
            ]
            if thresholds.contains(where: { abs($0 - percentage) <= nearThresholdPercent }) { return powerNearThreshold }
        }
        return powerStable
    }

    public func thermalInterval(_ machine: ThermalStateMachine) -> Duration {
        if machine.isConfirming { return min(thermalConfirm, fixedInterval ?? thermalConfirm) }
        if let fixedInterval { return fixedInterval }
        // Not the latest assessment alone: a zone that misread once (EIO from ACPI; the soak's
        // fixture caught between truncate and write) kept its vote, and would fall to the 30 s
        // poll and miss the next steps.
        let votes = machine.votesInForce
        let near = votes.contains { vote in
            if vote.source == .coolingDevice { return vote.state > .nominal }
            guard let temperature = vote.temperatureC, let distance = vote.thresholds?.distance(from: temperature) else { return false }
            return distance <= thermalNearWithinC
        }
        return near ? thermalNear : thermalFar
    }
}
