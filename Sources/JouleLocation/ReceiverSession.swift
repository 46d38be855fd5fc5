import JouleHardware

/// The receiver's bookkeeping for an engine: turns it on and off, reports each change as an
/// event, and counts its on-time and the fixes it delivered, for the summary.
struct ReceiverSession {
    let start: Int64
    private(set) var onSince: Int64?
    private(set) var onMicros: Int64 = 0
    /// The latest instant the session has seen (a fix's time, a deadline, a turn).
    private(set) var clock: Int64
    var fixes = 0

    init(start: Int64) {
        self.start = start
        clock = start
    }

    mutating func turnOn<R: LocationReceiver>(_ receiver: inout R, at time: Int64, emit: (LocationEvent) -> Void) async {
        guard onSince == nil else { return }
        advance(to: time)
        await receiver.turnOn(at: time)
        onSince = time
        emit(.receiver(isOn: true, timeMicros: time))
    }

    mutating func turnOff<R: LocationReceiver>(_ receiver: inout R, at time: Int64, emit: (LocationEvent) -> Void) async {
        guard let since = onSince else { return }
        advance(to: time)
        await receiver.turnOff(at: time)
        onMicros += clock - since
        onSince = nil
        emit(.receiver(isOn: false, timeMicros: clock))
    }

    mutating func received(_ fix: LocationFix) {
        fixes += 1
        advance(to: fix.timeMicros)
    }

    mutating func advance(to time: Int64) { clock = max(clock, time) }

    /// The summary at the session's end (the receiver already off).
    var summary: LocationSummary {
        LocationSummary(receiverOnMicros: onMicros, spanMicros: clock - start, fixes: fixes)
    }
}
