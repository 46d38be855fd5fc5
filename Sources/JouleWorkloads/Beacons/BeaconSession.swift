import JouleHardware

/// The beacon engine behind `joule beacons scan|range|monitor`: region monitoring, ranging and
/// the scan controller, driven by time passed in (capture timestamps on replay, the wall
/// clock live). Pure state: no file descriptors, no sleeping.
///
/// Ordering: before an advert at time t, everything due strictly before t happens; work due
/// exactly at t happens after the adverts of t (`advance(to:inclusive:)`).
public struct BeaconSession: Sendable {
    public enum Mode: Sendable {
        case scan
        case range(interval: Duration)
        case rangeOnce(interval: Duration, timeout: Duration)
        case monitor
    }

    public struct Configuration: Sendable {
        public var mode: Mode
        public var regions: [BeaconRegion] = []
        public var exitTimeout: Duration = .seconds(10)
        public var ranger: BeaconRanger
        public var controller = ScanController.Configuration()
        /// On replay the capture is what the radio heard: count all of it as listening time.
        public var alwaysListening = false
        /// The radio listens all the time it is on, whatever the duty asks: BlueZ discovery,
        /// whose scan window and interval the kernel picks.
        public var listensWhileOn = false

        public init(mode: Mode, regions: [BeaconRegion] = []) {
            self.mode = mode
            self.regions = regions
            ranger = BeaconRanger(regions: regions)
        }
    }

    public enum Output: Sendable, Equatable {
        /// A beacon advert (scan mode), stamped with the capture's own time, and the session's
        /// time when it was heard (nil before a replay's first plausible timestamp).
        case advert(BeaconAdvert, at: Int64?)
        case region(RegionEvent)
        /// One ranging interval's beacons, nearest first (possibly empty).
        case ranging(at: Int64, [RangedBeacon])
        case radio(at: Int64, RadioState)
        /// `range --once` is done: steady, or the timeout passed. The radio is off.
        case finished(at: Int64, steady: Bool, [RangedBeacon])
    }

    public let configuration: Configuration
    public private(set) var controller: ScanController
    private var monitor: RegionMonitor
    private var ranger: BeaconRanger
    private var intervalMicros: Int64?
    private var nextTick: Int64?
    private var onceDeadline: Int64?
    private var lastReport: [RangedBeacon] = []
    public private(set) var now: Int64
    public private(set) var radio: RadioState
    public private(set) var finished = false

    public init(configuration: Configuration, start: Int64) {
        self.configuration = configuration
        now = start
        var demand: ScanController.Demand = []
        switch configuration.mode {
        case .scan: demand = .scanning
        case .range(let interval):
            demand = .ranging
            intervalMicros = BeaconTime.micros(interval)
        case .rangeOnce(let interval, let timeout):
            demand = .ranging
            intervalMicros = BeaconTime.micros(interval)
            onceDeadline = start + BeaconTime.micros(timeout)
        case .monitor: demand = .monitoring
        }
        if let intervalMicros { nextTick = start + max(intervalMicros, 1) }
        controller = ScanController(configuration: configuration.controller, demand: demand, start: start)
        monitor = RegionMonitor(regions: configuration.regions, exitTimeout: configuration.exitTimeout)
        ranger = configuration.ranger
        ranger.regions = configuration.regions
        radio = controller.radio
        _ = monitor.advance(to: start, listening: true)
    }

    /// The radio state at start, for the driver to apply before the first event.
    public var initialOutputs: [Output] { [.radio(at: now, radio)] }

    /// Sets the energy policy input (Low Power Mode, thermal state); takes effect now.
    public mutating func setPolicy(_ policy: ScanPolicyInput) -> [Output] {
        controller.policy = policy
        return radioChange()
    }

    /// The fraction of the time the radio listens: a scan listens its window out of every
    /// interval (as the controller counts them, in slots); a replay heard all it holds.
    private var listening: Double {
        if configuration.alwaysListening { return 1 }
        if configuration.listensWhileOn { return radio.isOn ? 1 : 0 }
        guard case .scanning(let duty) = radio else { return 0 }
        return min(1, Double(duty.windowSlots) / Double(max(duty.intervalSlots, 1)))
    }

    private var nextDeadline: Int64? {
        guard !finished else { return nil }
        // Once per event of a capture: no array, no allocation.
        func earlier(_ a: Int64?, _ b: Int64?) -> Int64? {
            guard let a else { return b }
            guard let b else { return a }
            return min(a, b)
        }
        return earlier(earlier(nextTick, onceDeadline), earlier(controller.nextDeadline, monitor.nextExit(listening: listening)))
    }

    /// True when moving time cannot cause any output: no regions, no timer, no back-off. Then
    /// a driver may let many events pass and `advance` once to the last one's time.
    public var isQuiet: Bool {
        !finished && configuration.regions.isEmpty && nextDeadline == nil && controller.pauseLevel == 0
    }

    /// Moves time to `time`, firing everything due before it (and at it, when `inclusive`).
    public mutating func advance(to time: Int64, inclusive: Bool = false) -> [Output] {
        var out: [Output] = []
        while true {
            skipLongGap(before: time)
            guard let deadline = nextDeadline, deadline < time || (inclusive && deadline == time), deadline >= now else {
                break
            }
            step(to: deadline, fire: true, into: &out)
        }
        if time > now { step(to: time, fire: false, into: &out) }
        return out
    }

    /// Ranging intervals are reported one by one, but not across a gap of more than 1000 of
    /// them (a capture paused for hours): those are skipped to the last one before `time`.
    /// Likewise the back-off cycles of a paused radio are crossed in one jump, unless a region
    /// is inside: its exit depends on each listening window, and comes within a few cycles.
    private mutating func skipLongGap(before time: Int64) {
        if let tick = nextTick, let intervalMicros, time > tick {
            let missed = (time - tick) / intervalMicros
            if missed > 1000 { nextTick = tick + (missed - 1) * intervalMicros }
        }
        let longestCycle = configuration.controller.backoffCycles.max().map(BeaconTime.micros) ?? 0
        if !monitor.anyInside, controller.pauseLevel > 0, time - now > 4 * longestCycle {
            controller.advance(to: time - 2 * longestCycle)
            _ = monitor.advance(to: controller.now, listening: 0)
            now = max(now, controller.now)
        }
    }

    /// Moves to `time`; with `fire`, work due exactly at `time` happens too.
    private mutating func step(to time: Int64, fire: Bool, into out: inout [Output]) {
        for event in monitor.advance(to: time, listening: listening, inclusive: fire) {
            out.append(.region(event))
            controller.noteChange(at: event.timestampMicros)
        }
        now = max(now, time)
        controller.advance(to: now)
        if fire, let tick = nextTick, tick <= now, let intervalMicros {
            nextTick = tick + max(intervalMicros, 1)
            lastReport = ranger.report(at: tick)
            controller.rangingGaveUp = ranger.gaveUp
            if case .rangeOnce = configuration.mode {
                if ranger.allSteady { finish(at: tick, steady: true, into: &out) }
            } else {
                out.append(.ranging(at: tick, lastReport))
            }
        }
        if fire, let deadline = onceDeadline, deadline <= now, !finished {
            finish(at: deadline, steady: false, into: &out)
        }
        out += radioChange()
    }

    private mutating func finish(at time: Int64, steady: Bool, into out: inout [Output]) {
        finished = true
        nextTick = nil
        onceDeadline = nil
        controller.demand = []
        out.append(.finished(at: time, steady: steady, lastReport))
    }

    private mutating func radioChange() -> [Output] {
        let wanted = controller.radio
        guard wanted != radio else { return [] }
        radio = wanted
        return [.radio(at: now, wanted)]
    }

    /// An advert heard at `now` (call `advance` first): region events and radio changes.
    /// Scan mode's stream of adverts is the runner's to emit; the session only counts them.
    public mutating func receive(_ advert: BeaconAdvert) -> [Output] {
        guard !finished, !configuration.regions.isEmpty else { return [] }
        var out: [Output] = []
        guard let (key, txPower) = BeaconKey.of(advert.frame) else { return out }
        for event in monitor.observe(key, at: now) {
            out.append(.region(event))
            controller.noteChange(at: now)
        }
        ranger.observe(key, txPower: txPower, rssi: advert.rssi.map(Int.init), at: now)
        out += radioChange()
        return out
    }
}
