import JouleEnergy
import JouleHardware
import JouleWire

/// What a location session reports, in order. The CLI prints each as one JSON line
/// (`jsonObject`) or one readable line (`text`).
public enum LocationEvent: Sendable, Equatable {
    /// The receiver went on or off.
    case receiver(isOn: Bool, timeMicros: Int64)
    /// A fix delivered; `accuracyMet` only for a one-shot request.
    case location(LocationFix, accuracyMet: Bool?)
    /// Fixes held back and delivered together.
    case deferred([LocationFix], reason: DeferralReason)
    /// Auto-pause: the device stood still; the receiver goes off and probes.
    case paused(timeMicros: Int64)
    /// Auto-pause: a probe found the device moved; updates go on.
    case resumed(timeMicros: Int64)
    /// Give up: no fix met the accuracy in time; the receiver is off until `retryAtMicros`.
    case gaveUp(timeMicros: Int64, bestAccuracyM: Double?, retryAtMicros: Int64)
    /// A live source failed and is being retried; `message` names it and what it said.
    case error(message: String, timeMicros: Int64)
    /// Monitor: the first fix that decides a region's state (the JSON has no fix: the issue's
    /// shape is region and state).
    case regionState(region: String, inside: Bool, fix: LocationFix)
    /// Monitor: a region entered or left, at `fix`.
    case regionEnter(region: String, fix: LocationFix)
    case regionExit(region: String, fix: LocationFix)
    /// Visits: the device stayed (departure nil), or left (departure set); `fix` is the fix
    /// that decided (the JSON gives the visit alone).
    case visitArrival(Visit, fix: LocationFix)
    case visitDeparture(Visit, fix: LocationFix)
    /// Significant change: a fix 500 m from the last reported.
    case significantChange(LocationFix)
    /// Low Power Mode or the thermal state relaxed the request (printed first).
    case policy(LocationPolicy)
    /// The session's end: the receiver's on-time, the span and the fixes it received.
    case summary(LocationSummary)
}

/// Why a deferred batch was delivered.
public enum DeferralReason: String, Sendable, Equatable {
    case distance, time, stop
}

public struct LocationSummary: Sendable, Equatable {
    /// How long the receiver was on, µs.
    public var receiverOnMicros: Int64
    /// From the session's start (the receiver first on) to its end, µs.
    public var spanMicros: Int64
    /// Fixes the receiver delivered to Joule (delivered to the user or not).
    public var fixes: Int

    public init(receiverOnMicros: Int64, spanMicros: Int64, fixes: Int) {
        self.receiverOnMicros = receiverOnMicros
        self.spanMicros = spanMicros
        self.fixes = fixes
    }
}

extension LocationFix {
    /// `{"time","latitude","longitude","horizontalAccuracyM","altitudeM","verticalAccuracyM",
    /// "speedMps","courseDeg","source"}`, null for what the source did not give.
    public var jsonObject: JSONObject {
        [
            "time": .string(UTCTime.text(timeMicros)), "latitude": .double(latitude), "longitude": .double(longitude),
            "horizontalAccuracyM": .from(horizontalAccuracyM), "altitudeM": .from(altitudeM),
            "verticalAccuracyM": .from(verticalAccuracyM), "speedMps": .from(speedMps), "courseDeg": .from(courseDeg),
            "source": .string(source),
        ]
    }

    /// `51.500000, -0.120000 ±5 m, alt 12 m ±8 m, 1.2 m/s 90°, replay`, the time before it
    /// as `clock` writes it.
    public func text(clock: (Int64) -> String) -> String {
        func number(_ value: Double, _ places: Int) -> String {
            let scaled = (value * Double(places == 6 ? 1_000_000 : 10)).rounded()
            let whole = Int64(scaled)
            let divisor: Int64 = places == 6 ? 1_000_000 : 10
            let sign = whole < 0 ? "-" : ""
            let magnitude = whole.magnitude
            let fraction = String(magnitude % UInt64(divisor))
            return sign + String(magnitude / UInt64(divisor)) + "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        var text = "\(clock(timeMicros)) \(number(latitude, 6)), \(number(longitude, 6))"
        text += horizontalAccuracyM.map { " ±\(number($0, 1)) m" } ?? " ±? m"
        if let altitudeM { text += ", alt \(number(altitudeM, 1)) m" + (verticalAccuracyM.map { " ±\(number($0, 1)) m" } ?? "") }
        if let speedMps { text += ", \(number(speedMps, 1)) m/s" }
        if let courseDeg { text += " \(number(courseDeg, 1))°" }
        return text + " (\(source))"
    }
}

extension LocationEvent {
    /// The event's JSON line (the issue's shapes).
    public var jsonObject: JSONObject {
        switch self {
        case .receiver(let isOn, let time):
            ["event": .string("receiver"), "state": .string(isOn ? "on" : "off"), "time": .string(UTCTime.text(time))]
        case .location(let fix, let met):
            if let met { ["event": .string("location"), "fix": .object(fix.jsonObject), "accuracyMet": .bool(met)] }
            else { ["event": .string("location"), "fix": .object(fix.jsonObject)] }
        case .deferred(let fixes, let reason):
            ["event": .string("deferred"), "fixes": .array(fixes.map { .object($0.jsonObject) }), "reason": .string(reason.rawValue)]
        case .paused(let time):
            ["event": .string("paused"), "reason": .string("stationary"), "time": .string(UTCTime.text(time))]
        case .resumed(let time):
            ["event": .string("resumed"), "reason": .string("moved"), "time": .string(UTCTime.text(time))]
        case .gaveUp(let time, let best, let retryAt):
            [
                "event": .string("gaveUp"), "time": .string(UTCTime.text(time)), "bestAccuracyM": .from(best),
                "retryAt": .string(UTCTime.text(retryAt)),
            ]
        case .error(let message, let time):
            ["event": .string("error"), "message": .string(message), "time": .string(UTCTime.text(time))]
        case .regionState(let region, let inside, _):
            ["event": .string("regionState"), "region": .string(region), "state": .string(inside ? "inside" : "outside")]
        case .regionEnter(let region, let fix):
            ["event": .string("regionEnter"), "region": .string(region), "fix": .object(fix.jsonObject)]
        case .regionExit(let region, let fix):
            ["event": .string("regionExit"), "region": .string(region), "fix": .object(fix.jsonObject)]
        case .visitArrival(let visit, _): ["event": .string("visitArrival"), "visit": .object(visit.jsonObject)]
        case .visitDeparture(let visit, _): ["event": .string("visitDeparture"), "visit": .object(visit.jsonObject)]
        case .significantChange(let fix): ["event": .string("significantChange"), "fix": .object(fix.jsonObject)]
        case .policy(let policy):
            ["event": .string("policy"), "lowPowerMode": .bool(policy.lowPowerMode), "thermalState": .string(policy.thermalState.description)]
        case .summary(let summary):
            [
                "event": .string("summary"), "receiverOnS": .double(Double(summary.receiverOnMicros) / 1e6),
                "spanS": .double(Double(summary.spanMicros) / 1e6), "fixes": .int(summary.fixes),
            ]
        }
    }

    /// One readable line; `clock` writes an instant (the CLI: local date and time).
    public func text(clock: (Int64) -> String) -> String {
        switch self {
        case .receiver(let isOn, let time): "\(clock(time)) receiver \(isOn ? "on" : "off")"
        case .location(let fix, let met):
            fix.text(clock: clock) + (met == false ? " — accuracy not met" : "")
        case .deferred(let fixes, let reason):
            "deferred batch of \(fixes.count) (\(reason.rawValue)):\n" + fixes.map { "  " + $0.text(clock: clock) }.joined(separator: "\n")
        case .paused(let time): "\(clock(time)) paused: stationary"
        case .resumed(let time): "\(clock(time)) resumed: moved"
        case .gaveUp(let time, let best, let retryAt):
            "\(clock(time)) gave up (best ±\(best.map { "\($0)" } ?? "?") m), retrying at \(clock(retryAt))"
        case .error(let message, let time): "\(clock(time)) error: \(message)"
        case .regionState(let region, let inside, let fix): "\(clock(fix.timeMicros)) \(region): \(inside ? "inside" : "outside")"
        case .regionEnter(let region, let fix): "entered \(region): " + fix.text(clock: clock)
        case .regionExit(let region, let fix): "left \(region): " + fix.text(clock: clock)
        case .visitArrival(let visit, let fix): "\(clock(fix.timeMicros)) visit: " + visit.text(clock: clock)
        case .visitDeparture(let visit, let fix): "\(clock(fix.timeMicros)) visit over: " + visit.text(clock: clock)
        case .significantChange(let fix): "significant change: " + fix.text(clock: clock)
        case .policy(let policy):
            "policy: Low Power Mode \(policy.lowPowerMode ? "on" : "off"), thermal state \(policy.thermalState): requests relaxed (accuracy at least 1 km)"
        case .summary(let s):
            "receiver on \(Double(s.receiverOnMicros) / 1e6) s of \(Double(s.spanMicros) / 1e6) s, \(s.fixes) fix(es)"
        }
    }
}
