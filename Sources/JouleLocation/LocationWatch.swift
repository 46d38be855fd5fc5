import JouleHardware

/// Standard updates: every fix that meets the accuracy and lies far enough from the last one
/// delivered; optionally held back and delivered in batches (deferred updates).
public struct WatchRequest: Sendable, Equatable {
    /// Fixes with a horizontal accuracy worse than this (or unknown) are not delivered, metres.
    public var accuracyM: Double
    /// A fix is delivered when it lies at least this far from the last one delivered, metres
    /// (0: every fix that meets the accuracy). The first is always delivered.
    public var distanceM: Double
    /// Deferred updates: a batch is delivered at the first fix this far (straight line) from
    /// the batch's first fix, metres.
    public var deferDistanceM: Double?
    /// Deferred updates: … or this long after the batch's first fix, µs.
    public var deferTimeMicros: Int64?
    /// Auto-pause: after this long without moving, the receiver goes off and probes, µs.
    public var pauseWhenStationaryMicros: Int64?
    /// While paused, one probe fix this often, µs (default 300 s).
    public var probeMicros: Int64
    /// Give up: after this long with no fix meeting the accuracy (since the receiver went on,
    /// or the best accuracy last improved by 10 %), the receiver goes off until `retryMicros`.
    public var giveUpMicros: Int64?
    /// How long after giving up to try again, µs (default 300 s).
    public var retryMicros: Int64

    public init(
        accuracyM: Double = 100, distanceM: Double = 0, deferDistanceM: Double? = nil, deferTimeMicros: Int64? = nil,
        pauseWhenStationaryMicros: Int64? = nil, probeMicros: Int64 = 300_000_000, giveUpMicros: Int64? = nil,
        retryMicros: Int64 = 300_000_000
    ) {
        self.giveUpMicros = giveUpMicros
        self.retryMicros = retryMicros
        self.accuracyM = accuracyM
        self.distanceM = distanceM
        self.deferDistanceM = deferDistanceM
        self.deferTimeMicros = deferTimeMicros
        self.pauseWhenStationaryMicros = pauseWhenStationaryMicros
        self.probeMicros = probeMicros
    }

    public var defers: Bool { deferDistanceM != nil || deferTimeMicros != nil }
}

public enum LocationWatch {
    /// Runs until the input ends: the receiver on from the source's start to its end, each
    /// fix delivered as `.location` (or held into `.deferred` batches), then the receiver off
    /// and the summary. Returns the summary.
    ///
    /// With `pauseWhenStationaryMicros`, the stillness anchor is the first fix; a fix farther
    /// than max(25 m, its accuracy) from it becomes the new anchor (an unknown accuracy moves
    /// nothing). The first fix at least that long after the anchor pauses: `.paused`, and the
    /// receiver off. It then wakes every `probeMicros` for one fix, not delivered; a probe more
    /// than 100 m from the pausing fix resumes (`.resumed`), and updates go on from it.
    ///
    /// With `giveUpMicros`, the receiver goes off (`.gaveUp`) when no fix has met the accuracy
    /// for that long since it went on or since the best accuracy last improved by 10 % (fixes
    /// too coarse to deliver still count), and on again `retryMicros` later.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: WatchRequest, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        await run(request, following: nil, receiver: &receiver, emit: emit)
    }

    /// `run`, with the policy read from `feed` at every fix: when it changes, `.policy` and
    /// the request relaxed (or restored) from what was asked, the source asked for the new
    /// accuracy; what was held stays held.
    static func run<R: LocationReceiver>(
        _ asked: WatchRequest, following feed: LocationPolicyFeed?, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        var policy = feed?.current ?? .normal
        var request = feed == nil ? asked : policy.applied(to: asked)
        guard let start = receiver.startTime else { return nil }
        var session = ReceiverSession(start: start)
        // A live source picks the coarsest mode that meets the request (GeoClue's level).
        await receiver.requestAccuracy(request.accuracyM)
        await session.turnOn(&receiver, at: start, emit: emit)
        var filter = DeliveryFilter(request: request)
        var anchor: LocationFix?
        var effort = GiveUpClock(since: start)
        reading: while true {
            let deadline = request.giveUpMicros.map { effort.since + $0 }
            let fix: LocationFix
            switch await receiver.next(before: deadline) {
            case .end: break reading
            case .trouble(let message, let time):
                emit(.error(message: message, timeMicros: time))
                continue reading
            case .fix(let next): fix = next
            case .deadline:
                // No fix met the accuracy, nor improved on the best by 10 %, for give-up seconds.
                guard let time = deadline else { break reading }
                let retryAt = time + request.retryMicros
                emit(.gaveUp(timeMicros: time, bestAccuracyM: effort.bestAccuracyM, retryAtMicros: retryAt))
                await session.turnOff(&receiver, at: time, emit: emit)
                if let end = receiver.endTime, retryAt > end { break reading }
                await receiver.sleep(until: retryAt)
                await session.turnOn(&receiver, at: retryAt, emit: emit)
                effort = GiveUpClock(since: retryAt)
                // Where the device was while the receiver was off is unknown: stillness starts over.
                anchor = nil
                continue reading
            }
            session.received(fix)
            if let feed, feed.current != policy {
                policy = feed.current
                emit(.policy(policy))
                request = policy.applied(to: asked)
                filter.request = request
                await receiver.requestAccuracy(request.accuracyM)
            }
            effort.observe(fix, accuracyM: request.accuracyM)
            filter.consider(fix, emit: emit)
            guard let stillness = request.pauseWhenStationaryMicros else { continue }
            guard let current = anchor else {
                anchor = fix
                continue
            }
            if let accuracy = fix.horizontalAccuracyM, Geodesy.distanceM(current, fix) > max(25, accuracy) {
                anchor = fix
                continue
            }
            guard fix.timeMicros - current.timeMicros >= stillness else { continue }
            emit(.paused(timeMicros: fix.timeMicros))
            await session.turnOff(&receiver, at: fix.timeMicros, emit: emit)
            var probeAt = fix.timeMicros + request.probeMicros
            while true {
                // The input ends while paused: nothing more would be heard.
                if let end = receiver.endTime, probeAt > end { break reading }
                await receiver.sleep(until: probeAt)
                await session.turnOn(&receiver, at: probeAt, emit: emit)
                guard let probe = await receiver.nextFix(emit: emit) else { break reading }
                session.received(probe)
                if Geodesy.distanceM(fix, probe) > 100 {
                    emit(.resumed(timeMicros: probe.timeMicros))
                    anchor = probe
                    effort = GiveUpClock(since: probe.timeMicros)
                    effort.observe(probe, accuracyM: request.accuracyM)
                    filter.consider(probe, emit: emit)
                    continue reading
                }
                await session.turnOff(&receiver, at: probe.timeMicros, emit: emit)
                // The next probe on the same period, after this probe's fix.
                let behind = probe.timeMicros - probeAt
                probeAt += (behind / request.probeMicros + 1) * request.probeMicros
            }
        }
        filter.finish(emit: emit)
        if let end = receiver.endTime { session.advance(to: end) }
        await session.turnOff(&receiver, at: session.clock, emit: emit)
        emit(.summary(session.summary))
        return session.summary
    }
}

/// The give-up rule's clock: it restarts when the receiver goes on, at every fix that meets the
/// accuracy, and whenever the best accuracy improves by at least 10 % on the one it last
/// restarted for (the first known accuracy counts as an improvement).
struct GiveUpClock {
    var since: Int64
    /// The best accuracy since the receiver went on, metres.
    var bestAccuracyM: Double?
    /// The accuracy the clock last restarted for.
    private var reference: Double?

    init(since: Int64) { self.since = since }

    mutating func observe(_ fix: LocationFix, accuracyM: Double) {
        guard let accuracy = fix.horizontalAccuracyM else { return }
        bestAccuracyM = min(bestAccuracyM ?? accuracy, accuracy)
        if accuracy <= accuracyM || reference.map({ accuracy <= $0 * 0.9 }) ?? true {
            since = fix.timeMicros
            reference = accuracy
        }
    }
}

/// Which fixes `watch` delivers, and its deferred batch.
struct DeliveryFilter {
    /// Replaced when the daemon's policy relaxes or restores it; what was held stays.
    var request: WatchRequest
    var lastDelivered: LocationFix?
    var batch: [LocationFix] = []

    init(request: WatchRequest) { self.request = request }

    mutating func consider(_ fix: LocationFix, emit: (LocationEvent) -> Void) {
        guard fix.meetsAccuracy(request.accuracyM) else { return }
        if let last = lastDelivered, Geodesy.distanceM(last, fix) < request.distanceM { return }
        lastDelivered = fix
        guard request.defers else { return emit(.location(fix, accuracyMet: nil)) }
        batch.append(fix)
        let first = batch[0]
        if let limit = request.deferDistanceM, batch.count > 1, Geodesy.distanceM(first, fix) >= limit {
            emit(.deferred(batch, reason: .distance))
            batch = []
        } else if let limit = request.deferTimeMicros, batch.count > 1, fix.timeMicros - first.timeMicros >= limit {
            emit(.deferred(batch, reason: .time))
            batch = []
        }
    }

    /// The end of the input delivers the rest as `stop`.
    mutating func finish(emit: (LocationEvent) -> Void) {
        if !batch.isEmpty { emit(.deferred(batch, reason: .stop)) }
        batch = []
    }
}

extension LocationReceiver {
    /// The next fix, reporting a live source's trouble on the way; nil at the end.
    mutating func nextFix(emit: (LocationEvent) -> Void) async -> LocationFix? {
        while true {
            switch await next(before: nil) {
            case .fix(let fix): return fix
            case .end, .deadline: return nil
            case .trouble(let message, let time): emit(.error(message: message, timeMicros: time))
            }
        }
    }
}
