import JouleHardware

/// How `monitor`, `visits` and `significant` keep the receiver off between samples: after a fix
/// at distance d from the nearest boundary that matters, nothing can cross it sooner than
/// (d − accuracy) / max-speed, so the receiver stays off that long (at least 5 s, at most
/// 15 min). A device far from every boundary wakes rarely; one near a boundary samples densely.
public struct SamplingRequest: Sendable, Equatable {
    /// A sample ends at the first fix at least this accurate, metres.
    public var accuracyM: Double
    /// The fastest the device is assumed to move, m/s (default 30: a car on a main road).
    public var maxSpeedMps: Double
    /// How long a sample waits for a fix as accurate as asked once fixes come, counted from the
    /// receiver going on, µs (default 30 s, `once`'s timeout): then the most accurate fix of the
    /// sample ends it. A sample that has had no fix at all keeps the receiver on: nothing is
    /// known to sleep on.
    public var settleMicros: Int64

    public init(accuracyM: Double = 100, maxSpeedMps: Double = 30, settleMicros: Int64 = 30_000_000) {
        self.accuracyM = accuracyM
        self.maxSpeedMps = maxSpeedMps
        self.settleMicros = settleMicros
    }

    /// The shortest and longest the receiver stays off between samples, µs.
    public static let minimumOffMicros: Int64 = 5_000_000
    public static let maximumOffMicros: Int64 = 900_000_000

    /// How long the receiver may stay off when it goes off at `offAt` after `fix`, which lies
    /// `boundaryM` from the nearest boundary: (d − accuracy) / max-speed from the fix's time,
    /// less what has passed since, within 5 s…15 min, to the millisecond. An unknown accuracy (or a boundary
    /// closer than the accuracy) gives the minimum.
    public func offMicros(after fix: LocationFix, boundaryM: Double, offAt: Int64) -> Int64 {
        guard let accuracy = fix.horizontalAccuracyM, boundaryM - accuracy > 0 else { return Self.minimumOffMicros }
        let seconds = (boundaryM - accuracy) / maxSpeedMps - Double(offAt - fix.timeMicros) / 1e6
        guard seconds.isFinite else { return Self.maximumOffMicros }
        // To the millisecond: the haversine's last bits would otherwise make 78 s 77.999999 s.
        let micros = (seconds * 1e3).rounded() * 1e3
        if micros >= Double(Self.maximumOffMicros) { return Self.maximumOffMicros }
        return max(Self.minimumOffMicros, Int64(micros))
    }
}

/// What an engine on adaptive sampling decides, fix by fix; `AdaptiveSampling.run` owns the
/// receiver.
protocol SampledRule {
    /// Every fix the receiver delivers, in order; the engine's events go to `emit`.
    mutating func consider(_ fix: LocationFix, emit: (LocationEvent) -> Void)
    /// Whether the engine samples now; false keeps the receiver on for every fix (a visit not
    /// yet arrived at, a first significant fix not yet had).
    var samples: Bool { get }
    /// Metres from `fix` to the nearest boundary the engine watches.
    func boundaryM(from fix: LocationFix) -> Double
    /// No event can come before this instant, µs (significant change's 300 s), so the
    /// receiver may stay off until then; nil for none.
    var quietUntil: Int64? { get }
}

extension SampledRule {
    var quietUntil: Int64? { nil }
}

enum AdaptiveSampling {
    /// Runs `rule` until the input ends (or the task is cancelled): the receiver on from the
    /// source's start; while the rule samples, each sample ends at the first fix meeting the
    /// accuracy (or, `settleMicros` after the receiver went on, the most accurate fix of the
    /// sample), and the receiver is off for `offMicros` after it (or until the rule's quiet
    /// time, if later); then the receiver off and the summary. Nil when the source has nothing.
    static func run<R: LocationReceiver, Rule: SampledRule>(
        _ rule: inout Rule, sampling: SamplingRequest, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        guard let start = receiver.startTime else { return nil }
        var session = ReceiverSession(start: start)
        // A live source picks the coarsest mode that meets the request (GeoClue's level).
        await receiver.requestAccuracy(sampling.accuracyM)
        await session.turnOn(&receiver, at: start, emit: emit)
        var sampleStart = start
        // The most accurate fix of this sample, while none has met the accuracy.
        var best: LocationFix?
        reading: while !Task.isCancelled {
            let deadline = best == nil ? nil : sampleStart + sampling.settleMicros
            let ending: LocationFix
            let offAt: Int64
            switch await receiver.next(before: deadline) {
            case .end: break reading
            case .trouble(let message, let time):
                emit(.error(message: message, timeMicros: time))
                continue reading
            case .fix(let fix):
                session.received(fix)
                rule.consider(fix, emit: emit)
                guard rule.samples else {
                    // Not sampling: the receiver stays on, and a sample starts afresh later.
                    (best, sampleStart) = (nil, fix.timeMicros)
                    continue reading
                }
                guard fix.meetsAccuracy(sampling.accuracyM) else {
                    if LocationOnce.isMoreAccurate(fix, than: best) { best = fix }
                    continue reading
                }
                (ending, offAt) = (fix, fix.timeMicros)
            case .deadline:
                guard let best, let deadline else { break reading }
                (ending, offAt) = (best, max(deadline, session.clock))
            }
            var wake = offAt + sampling.offMicros(after: ending, boundaryM: rule.boundaryM(from: ending), offAt: offAt)
            if let quiet = rule.quietUntil, quiet > wake { wake = quiet }
            await session.turnOff(&receiver, at: offAt, emit: emit)
            // The input ends while the receiver is off: nothing more would be heard.
            if let end = receiver.endTime, wake > end { break reading }
            await receiver.sleep(until: wake)
            if Task.isCancelled { break reading }
            await session.turnOn(&receiver, at: wake, emit: emit)
            (best, sampleStart) = (nil, wake)
        }
        if let end = receiver.endTime { session.advance(to: end) }
        await session.turnOff(&receiver, at: session.clock, emit: emit)
        emit(.summary(session.summary))
        return session.summary
    }
}
