import JouleHardware

/// `fixed:LAT,LON[,ACCURACY]` on the wall clock, for the daemon (a machine that does not move,
/// and tests): while on, a fix every `intervalMicros` (the first TTFF after turning on), each
/// waited for in real time, as a receiver's would be. The CLI's `FixedReceiver` is the
/// virtual-time one: one fix, then the end.
public struct StationaryReceiver: LocationReceiver, Sendable {
    public let latitude: Double
    public let longitude: Double
    public let accuracyM: Double?
    public let intervalMicros: Int64
    public let ttffMicros: Int64
    public let startTime: Int64?
    private var nextFix: Int64?

    public init(latitude: Double, longitude: Double, accuracyM: Double?, intervalMicros: Int64 = 1_000_000, ttffMicros: Int64 = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyM = accuracyM
        self.intervalMicros = max(1, intervalMicros)
        self.ttffMicros = ttffMicros
        startTime = WallClock.micros()
    }

    public var name: String { "fixed:\(latitude),\(longitude)" + (accuracyM.map { ",\($0)" } ?? "") }
    public var endTime: Int64? { nil }

    public mutating func turnOn(at time: Int64) async { if nextFix == nil { nextFix = time + ttffMicros } }
    public mutating func turnOff(at time: Int64) async { nextFix = nil }

    public mutating func sleep(until time: Int64) async {
        nextFix = nil
        await Self.wait(until: time)
    }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        guard let due = nextFix else {
            // Off: nothing comes; wait out the deadline as a live receiver would.
            if let deadline { await Self.wait(until: deadline) }
            return Task.isCancelled || deadline == nil ? .end : .deadline
        }
        if let deadline, due >= deadline {
            await Self.wait(until: deadline)
            return Task.isCancelled ? .end : .deadline
        }
        await Self.wait(until: due)
        if Task.isCancelled { return .end }
        nextFix = due + intervalMicros
        return .fix(LocationFix(timeMicros: due, latitude: latitude, longitude: longitude, horizontalAccuracyM: accuracyM, source: "fixed"))
    }

    /// Sleeps until the wall clock reads `time` (µs), or the task is cancelled.
    static func wait(until time: Int64) async {
        let micros = time - WallClock.micros()
        guard micros > 0 else { return }
        try? await Task.sleep(for: .microseconds(micros))
    }
}
