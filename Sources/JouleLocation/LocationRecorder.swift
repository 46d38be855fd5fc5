import JouleHardware

/// `joule location record`: how long, or how many fixes, to record.
public struct RecordRequest: Sendable, Equatable {
    /// Stop this long after the receiver went on, µs (nil: no limit).
    public var durationMicros: Int64?
    /// Stop after this many fixes (TPVs with `mode` ≥ 2; nil: no limit).
    public var count: Int?

    public init(durationMicros: Int64? = nil, count: Int? = nil) {
        self.durationMicros = durationMicros
        self.count = count
    }
}

/// Records a live gpsd stream as `gpspipe -w` writes it: every report gpsd sends while the
/// receiver is on, as sent (TPV, SKY, DEVICE, …), a line each, so `--replay` reads it back.
public enum LocationRecorder {
    /// Turns the receiver on, hands every report to `write` until the duration, the count, or
    /// the end (`stop()`: SIGINT/SIGTERM), turns it off and emits the summary. Trouble is
    /// emitted as `.error` and recording goes on once gpsd is back. A `write` that throws ends
    /// the recording, and its error is rethrown after the receiver is off.
    @discardableResult
    public static func run<Failure: Error>(
        _ request: RecordRequest, receiver: inout GPSDReceiver, write: (String) throws(Failure) -> Void,
        emit: (LocationEvent) -> Void
    ) async throws(Failure) -> LocationSummary {
        let start = receiver.startTime ?? WallClock.micros()
        var session = ReceiverSession(start: start)
        await session.turnOn(&receiver, at: start, emit: emit)
        let deadline = request.durationMicros.map { start + $0 }
        var failure: Failure?
        reading: while true {
            switch await receiver.nextReport(before: deadline) {
            case .report(let line, let fix):
                do throws(Failure) { try write(line) } catch {
                    failure = error
                    break reading
                }
                guard let fix else { continue }
                session.received(fix)
                if let count = request.count, session.fixes >= count { break reading }
            case .trouble(let message, let time):
                emit(.error(message: message, timeMicros: time))
            case .deadline, .end:
                break reading
            }
        }
        await session.turnOff(&receiver, at: max(session.clock, receiver.endTime ?? WallClock.micros()), emit: emit)
        emit(.summary(session.summary))
        if let failure { throw failure }
        return session.summary
    }
}
