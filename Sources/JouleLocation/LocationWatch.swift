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

    public init(accuracyM: Double = 100, distanceM: Double = 0, deferDistanceM: Double? = nil, deferTimeMicros: Int64? = nil) {
        self.accuracyM = accuracyM
        self.distanceM = distanceM
        self.deferDistanceM = deferDistanceM
        self.deferTimeMicros = deferTimeMicros
    }

    public var defers: Bool { deferDistanceM != nil || deferTimeMicros != nil }
}

public enum LocationWatch {
    /// Runs until the input ends: the receiver on from the source's start to its end, each
    /// fix delivered as `.location` (or held into `.deferred` batches), then the receiver off
    /// and the summary. Returns the summary.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: WatchRequest, receiver: inout R, emit: (LocationEvent) -> Void
    ) -> LocationSummary? {
        guard let start = receiver.startTime else { return nil }
        var session = ReceiverSession(start: start)
        session.turnOn(&receiver, at: start, emit: emit)
        var lastDelivered: LocationFix?
        var batch: [LocationFix] = []
        while case .fix(let fix) = receiver.next(before: nil) {
            session.received(fix)
            guard fix.meetsAccuracy(request.accuracyM) else { continue }
            if let last = lastDelivered, Geodesy.distanceM(last, fix) < request.distanceM { continue }
            lastDelivered = fix
            guard request.defers else {
                emit(.location(fix, accuracyMet: nil))
                continue
            }
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
        if !batch.isEmpty { emit(.deferred(batch, reason: .stop)) }
        session.turnOff(&receiver, at: max(session.clock, receiver.endTime ?? session.clock), emit: emit)
        emit(.summary(session.summary))
        return session.summary
    }
}
