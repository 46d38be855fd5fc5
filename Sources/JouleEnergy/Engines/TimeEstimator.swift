import RealModule
import JouleHardware

/// Time-to-empty and time-to-full for one battery over time, without UPower's known faults:
/// no estimate for a while after line power changes (drivers report the old direction's rate),
/// a rate derived from energy deltas when the driver gives none, a smoothed driver rate, and
/// nothing absurd (over `maximum`, or from a rate that cannot be right).
public struct TimeEstimator: Sendable {
    public struct Estimate: Sendable, Hashable {
        public var rateW: Double?
        public var timeToEmptyS: Int?
        public var timeToFullS: Int?
        /// True while the estimator has a direction but not yet enough data for a rate.
        public var isEstimating: Bool
    }

    /// How long after a line change no estimate is given.
    public var blankAfterLineChange: Duration
    /// Shortest span of energy samples a delta-derived rate may be based on.
    public var minimumDeltaSpan: Duration
    /// Time constant of the driver-rate smoothing.
    public var smoothing: Duration
    /// The longest estimate given; longer ones are absurd.
    public var maximum: Duration

    private var state: PowerSupplyState?
    private var samples: [(time: Double, energyWh: Double)] = []
    private var smoothedRateW: Double?
    private var lastRateAt: Double?
    private var blankUntil: Double = -.infinity

    public init(
        blankAfterLineChange: Duration = .seconds(10), minimumDeltaSpan: Duration = .seconds(30),
        smoothing: Duration = .seconds(30), maximum: Duration = PowerSupplyParser.maximumEstimate
    ) {
        self.blankAfterLineChange = blankAfterLineChange
        self.minimumDeltaSpan = minimumDeltaSpan
        self.smoothing = smoothing
        self.maximum = maximum
    }

    /// Line power changed at `time`: forget the old direction's history.
    public mutating func lineChanged(at time: Double) {
        blankUntil = time + blankAfterLineChange
        reset()
    }

    public mutating func update(
        state: PowerSupplyState, energyWh: Double?, energyFullWh: Double?, driverRateW: Double?, at time: Double
    ) -> Estimate {
        if state != self.state {
            reset()
            self.state = state
        }
        let moving = state == .charging || state == .discharging
        guard moving, let energyWh else {
            return Estimate(rateW: driverRateW, timeToEmptyS: nil, timeToFullS: nil, isEstimating: false)
        }
        guard time >= blankUntil else {
            return Estimate(rateW: nil, timeToEmptyS: nil, timeToFullS: nil, isEstimating: true)
        }

        samples.append((time, energyWh))
        // Keep ten minutes of history: enough for slow drains, small enough to follow load changes.
        samples.removeAll { time - $0.time > 600 }

        var rate: Double?
        if let driverRateW, driverRateW > 0 {
            if let previous = smoothedRateW, let lastRateAt {
                let weight = 1 - Double.exp(-(time - lastRateAt) / smoothing.inSeconds)
                smoothedRateW = previous + weight * (driverRateW - previous)
            } else {
                smoothedRateW = driverRateW
            }
            lastRateAt = time
            rate = smoothedRateW
        } else if let first = samples.first, time - first.time >= minimumDeltaSpan.inSeconds {
            let delta = state == .discharging ? first.energyWh - energyWh : energyWh - first.energyWh
            // Energy moving against the state (a stale status) gives no rate rather than a wrong one.
            if delta > 0 { rate = delta / (time - first.time) * 3600 }
        }

        guard let rate, rate > 0 else {
            return Estimate(rateW: nil, timeToEmptyS: nil, timeToFullS: nil, isEstimating: true)
        }
        var estimate = Estimate(rateW: rate, timeToEmptyS: nil, timeToFullS: nil, isEstimating: false)
        if state == .discharging {
            estimate.timeToEmptyS = bounded(3600 * energyWh / rate)
        } else if let energyFullWh, energyFullWh >= energyWh {
            estimate.timeToFullS = bounded(3600 * (energyFullWh - energyWh) / rate)
        }
        return estimate
    }

    private func bounded(_ seconds: Double) -> Int? {
        guard seconds.isFinite, seconds >= 0, seconds <= maximum.inSeconds else { return nil }
        return Int(seconds.rounded())
    }

    private mutating func reset() {
        samples.removeAll()
        smoothedRateW = nil
        lastRateAt = nil
    }
}
