/// Decides when the radio scans and at which duty cycle. Pure state over injected time:
/// the caller advances it through `nextDeadline` and applies `radio` to the transport.
///
/// - No demand (nothing monitored, ranged or scanned) or policy `stopped`: off.
/// - Ranging or scanning: high duty; monitoring alone: low duty. Policy `reduced` and ranging
///   that stopped improving (`rangingGaveUp`) lower it.
/// - Auto-pause (monitoring alone): after `pauseAfter` without a change, scan only
///   `pausedWindow` per cycle, the cycle growing step by step up to 300 s, as AltBeacon's
///   background mode (10 s per 300 s). The first change (`noteChange`) restores full scanning.
public struct ScanController: Sendable {
    public struct Demand: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let monitoring = Demand(rawValue: 1)
        public static let ranging = Demand(rawValue: 2)
        public static let scanning = Demand(rawValue: 4)
    }

    public struct Configuration: Sendable {
        public var highDuty: ScanDuty = .ranging
        public var lowDuty: ScanDuty = .monitoring
        public var autoPause = true
        public var pauseAfter: Duration = .seconds(30)
        public var pausedWindow: Duration = .seconds(10)
        /// Cycle lengths of the back-off steps, in order.
        public var backoffCycles: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(300)]
        public init() {}

        var pauseAfterMicros: Int64 { BeaconTime.micros(pauseAfter) }
        var pausedWindowMicros: Int64 { BeaconTime.micros(pausedWindow) }
        var backoffCyclesMicros: [Int64] { backoffCycles.map(BeaconTime.micros) }
    }

    public var configuration: Configuration
    public var demand: Demand { didSet { if demand != oldValue { resetPause() } } }
    public var policy: ScanPolicyInput = .normal
    public var rangingGaveUp = false

    /// 0 = not paused, n = n-th back-off step.
    public private(set) var pauseLevel = 0
    private var lastChange: Int64
    private var cycleStart: Int64 = 0
    public private(set) var now: Int64

    public init(configuration: Configuration = Configuration(), demand: Demand, start: Int64) {
        self.configuration = configuration
        self.demand = demand
        now = start
        lastChange = start
    }

    private var canPause: Bool {
        configuration.autoPause && demand == .monitoring && !configuration.backoffCyclesMicros.isEmpty
    }

    private var cycleLength: Int64 {
        let steps = configuration.backoffCyclesMicros
        return steps[min(pauseLevel, steps.count) - 1]
    }

    private mutating func resetPause() {
        pauseLevel = 0
        lastChange = now
    }

    /// A region event or other change: scan fully again and restart the pause timer.
    public mutating func noteChange(at time: Int64) {
        now = max(now, time)
        pauseLevel = 0
        lastChange = time
    }

    /// What the radio should do now.
    public var radio: RadioState {
        if demand.isEmpty || policy == .stopped { return .off }
        if pauseLevel > 0 && now - cycleStart >= configuration.pausedWindowMicros { return .off }
        var duty = configuration.lowDuty
        if !demand.isDisjoint(with: [.ranging, .scanning]) && !(demand.contains(.ranging) && rangingGaveUp) {
            duty = configuration.highDuty
        }
        return .scanning(policy == .reduced ? duty.reduced : duty)
    }

    /// The next time the radio state may change by itself, if any.
    public var nextDeadline: Int64? {
        guard canPause, policy != .stopped else { return nil }
        if pauseLevel == 0 { return lastChange + configuration.pauseAfterMicros }
        let windowEnd = cycleStart + configuration.pausedWindowMicros
        return now < windowEnd ? windowEnd : cycleStart + cycleLength
    }

    /// Moves time forward, stepping through every back-off transition on the way.
    public mutating func advance(to time: Int64) {
        while true {
            // At the last back-off step every cycle is alike: jump whole cycles across a long gap.
            if pauseLevel == configuration.backoffCyclesMicros.count, pauseLevel > 0, cycleLength > 0,
                time - cycleStart > 2 * cycleLength
            {
                cycleStart += ((time - cycleStart) / cycleLength - 1) * cycleLength
                now = max(now, cycleStart)
            }
            guard let deadline = nextDeadline, deadline <= time else { break }
            now = max(now, deadline)
            if pauseLevel == 0 {
                pauseLevel = 1
                cycleStart = deadline
            } else if deadline == cycleStart + cycleLength {
                cycleStart = deadline
                pauseLevel = min(pauseLevel + 1, configuration.backoffCyclesMicros.count)
            }
        }
        if !canPause { pauseLevel = 0 }
        now = max(now, time)
    }
}
