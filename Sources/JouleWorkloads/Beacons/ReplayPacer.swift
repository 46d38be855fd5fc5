import JouleWire
import JouleHardware

/// Sleeps so that replayed events arrive at the capture's pace: the first event's time is
/// now, each later one waits until its offset from the first has passed.
public final class ReplayPacer: Sendable {
    private let start = ContinuousClock.now
    private let first = Locked<Int64?>(nil)

    public init() {}

    public func pace(_ time: Int64) async {
        let origin = first.withLock { value in
            if value == nil { value = time }
            return value ?? time
        }
        let due = start + .microseconds(time - origin)
        if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
    }
}
