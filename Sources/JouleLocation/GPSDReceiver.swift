import JouleHardware

/// Live gpsd under Joule's receiver model, on the wall clock. Turning it on connects and sends
/// `?WATCH={"enable":true,"json":true}`; turning it off (or sleeping) sends
/// `?WATCH={"enable":false}` and closes the connection, so that gpsd, with no watcher left,
/// closes the receiver (after its RELEASE_TIMEOUT, 60 s in gpsd.c).
///
/// `next(before:)` waits for a TPV with a fix (`mode` ≥ 2; other classes and no-fix reports are
/// skipped) or for the deadline on the wall clock. A lost connection comes back as `.trouble`
/// naming gpsd, its address and the errno, and is retried with a back-off (1 s doubling to
/// 30 s) while the receiver should be on. `stop()` (SIGINT, SIGTERM) or cancelling the task
/// makes the next read `.end`, so the engines print their summary.
///
/// Time: a fix's time is gpsd's (the receiver's GPS time), while deadlines and `startTime` are
/// the system clock. Joule assumes the two agree (a GPS-disciplined or NTP-synced clock is
/// within well under a second); a system clock far off would make timeouts count wrong.
public struct GPSDReceiver: LocationReceiver, Sendable {
    public let connection: GPSDConnection
    public let startTime: Int64?
    public private(set) var endTime: Int64?
    public private(set) var isOn = false
    /// Opens a connection to gpsd at `address` (not yet watching); `now` is the session's start.
    public init(
        address: GPSDAddress, now: Int64, backoff: GPSDConnection.Backoff = .init()
    ) throws(HardwareError) {
        connection = try GPSDConnection(address: address, backoff: backoff)
        startTime = now
    }

    public var name: String { "gpsd at \(connection.address)" }

    /// Makes the next read `.end` (and ends a sleep): for a signal handler.
    public func stop() { connection.stop() }

    public mutating func turnOn(at time: Int64) async {
        isOn = true
        connection.setWatching(true)
    }

    public mutating func turnOff(at time: Int64) async {
        isOn = false
        connection.setWatching(false)
    }

    /// Off until `time` on the wall clock, really waiting; a stop ends the wait early (and
    /// the next read is `.end`).
    public mutating func sleep(until time: Int64) async {
        await turnOff(at: time)
        while true {
            switch await connection.next(until: time) {
            case .deadline, .stopped: return
            case .line, .trouble: continue
            }
        }
    }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        while true {
            switch await nextReport(before: deadline) {
            case .report(_, let fix?): return .fix(fix)
            case .report: continue
            case .trouble(let message, let time): return .trouble(message: message, timeMicros: time)
            case .deadline: return .deadline
            case .end: return .end
            }
        }
    }

    /// What `nextReport` read: a report gpsd sent while on, as sent, with its fix when it is a
    /// TPV with one (nil for other classes, no-fix TPVs and TPVs Joule refuses).
    public enum Report: Sendable, Equatable {
        case report(line: String, fix: LocationFix?)
        case trouble(message: String, timeMicros: Int64)
        case deadline
        case end
    }

    /// The next report of any class (for `record`), or trouble, the deadline or the end.
    public mutating func nextReport(before deadline: Int64?) async -> Report {
        if endTime != nil { return .end }
        while true {
            switch await connection.next(until: deadline) {
            case .deadline: return .deadline
            case .stopped:
                endTime = WallClock.micros()
                connection.setWatching(false)
                return .end
            case .trouble(let message): return .trouble(message: message, timeMicros: WallClock.micros())
            case .line(let line):
                // A line read just before a turn-off is not this session's.
                guard isOn else { continue }
                let fix: LocationFix?
                do throws(GPSDReportError) { fix = try GPSDReport.decode(line: line, lineNumber: 0, source: "gpsd") } catch {
                    fix = nil
                }
                return .report(line: line, fix: fix)
            }
        }
    }
}
