/// What optimized charging does at `now` while the charger is plugged in.
public enum OptimizedChargingDecision: Sendable, Equatable {
    /// Hold at the end threshold until `until` (the release time).
    case hold(until: Double, prediction: UnplugPrediction)
    /// The release time has passed: charge on to 100 %.
    case release(prediction: UnplugPrediction)
    /// No prediction to act on, or a charge that is not overnight: charge normally, for `reason`.
    case normal(reason: UnplugPredictor.Reason)

    /// Only a charge begun within this long of the predicted full time is held: one plugged
    /// in at lunchtime charges normally rather than wait at 80 % all afternoon.
    public static let overnightWindow: Double = 14 * 3600

    /// The decision at `now` from the sessions in the history (the injected clock is `now`),
    /// for a charge plugged in at `pluggedAt` (nil: unknown, taken as `now`).
    public static func decide(
        _ sessions: [ChargeSession], now: Double, utcOffset: Int, end: Int, percent: Double?, ratePerHour: Double?,
        pluggedAt: Double? = nil
    ) -> Self {
        switch UnplugPredictor.predict(sessions, now: now, utcOffset: utcOffset) {
        case .failure(let reason): return .normal(reason: reason)
        case .success(let prediction):
            if (pluggedAt ?? now) < prediction.fullBy - overnightWindow {
                return .normal(reason: .daytime(fullBy: UnplugPredictor.clock(prediction.fullBy, utcOffset)))
            }
            let release = ChargeReleasePlanner.release(prediction, end: end, percent: percent, ratePerHour: ratePerHour)
            return now < release ? .hold(until: release, prediction: prediction) : .release(prediction: prediction)
        }
    }

    public var isHold: Bool { if case .hold = self { true } else { false } }

    /// For `joule battery` and the log, as `holding at 80 % until 06:30, full by 07:30
    /// (unplugged 07:45 ± 5 min on 10 of the last 10 weekdays)`.
    public func description(end: Int, utcOffset: Int) -> String {
        switch self {
        case .hold(let until, let prediction):
            "holding at \(end) % until \(UnplugPredictor.clock(until, utcOffset)), \(prediction.description)"
        case .release(let prediction): "charging to 100 %, \(prediction.description)"
        case .normal(let reason): "\(reason)"
        }
    }
}
