import JouleHardware

/// `requestLocation`: one fix, with the receiver on no longer than it takes.
public struct OnceRequest: Sendable, Equatable {
    /// The fix wanted: horizontal accuracy at most this, metres (default 100).
    public var accuracyM: Double
    /// How long to try, counted from the receiver going on, µs (default 30 s).
    public var timeoutMicros: Int64

    public init(accuracyM: Double = 100, timeoutMicros: Int64 = 30_000_000) {
        self.accuracyM = accuracyM
        self.timeoutMicros = timeoutMicros
    }
}

public enum LocationOnce {
    /// Turns the receiver on at the source's start and off at the first fix whose accuracy is
    /// at most `accuracyM`, delivered with `accuracyMet` true. At the timeout (or the end of
    /// the input, whichever is first) the most accurate fix seen is delivered with
    /// `accuracyMet` false, an unknown accuracy counting as the worst. Emits the receiver's
    /// turns, the fix and the summary, and returns the fix delivered; with no fix at all, the
    /// summary is emitted and `.noFix` naming the source is thrown.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: OnceRequest, receiver: inout R, emit: (LocationEvent) -> Void
    ) async throws(LocationError) -> (fix: LocationFix, accuracyMet: Bool) {
        guard let start = receiver.startTime else { throw .noFix(source: receiver.name) }
        var session = ReceiverSession(start: start)
        // A live source picks the coarsest mode that meets the request (GeoClue's level).
        await receiver.requestAccuracy(request.accuracyM)
        await session.turnOn(&receiver, at: start, emit: emit)
        let deadline = start + request.timeoutMicros
        var best: LocationFix?
        var end = deadline
        reading: while true {
            switch await receiver.next(before: deadline) {
            case .fix(let fix):
                session.received(fix)
                if fix.meetsAccuracy(request.accuracyM) {
                    emit(.location(fix, accuracyMet: true))
                    await session.turnOff(&receiver, at: fix.timeMicros, emit: emit)
                    emit(.summary(session.summary))
                    return (fix, true)
                }
                if isMoreAccurate(fix, than: best) { best = fix }
            case .trouble(let message, let time):
                emit(.error(message: message, timeMicros: time))
            case .deadline:
                break reading
            case .end:
                // The input ran out before the timeout: the clock stops at its last instant.
                end = min(deadline, max(session.clock, receiver.endTime ?? session.clock))
                break reading
            }
        }
        if let best { emit(.location(best, accuracyMet: false)) }
        await session.turnOff(&receiver, at: end, emit: emit)
        emit(.summary(session.summary))
        guard let best else { throw receiver.failure ?? .noFix(source: receiver.name) }
        return (best, false)
    }

    /// A known accuracy beats an unknown one; a tie keeps the earlier fix.
    static func isMoreAccurate(_ fix: LocationFix, than best: LocationFix?) -> Bool {
        guard let best else { return true }
        guard let accuracy = fix.horizontalAccuracyM else { return false }
        guard let bestAccuracy = best.horizontalAccuracyM else { return true }
        return accuracy < bestAccuracy
    }
}
