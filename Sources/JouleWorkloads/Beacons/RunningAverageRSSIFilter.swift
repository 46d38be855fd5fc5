/// RSSI smoothing in the manner of AltBeacon's running-average filter: keep the samples of
/// the last `window` (20 s by default), drop the top and bottom `trim` fraction (10 %), average
/// the rest. A beacon with no RSSI sample in the window has no value (proximity unknown).
public struct RunningAverageRSSIFilter: Sendable {
    public let window: Duration
    public var trim: Double
    private let windowMicros: Int64
    /// (time in Unix µs, dBm), oldest first.
    private var samples: [(Int64, Int)] = []

    public init(window: Duration = .seconds(20), trim: Double = 0.1) {
        self.window = window
        windowMicros = BeaconTime.micros(window)
        self.trim = min(max(trim, 0), 0.49)
    }

    public mutating func add(_ rssi: Int, at micros: Int64) {
        samples.append((micros, rssi))
    }

    /// Forgets samples that have left the window ending at `now`.
    public mutating func prune(now: Int64) {
        let oldest = now - windowMicros
        if let keep = samples.firstIndex(where: { $0.0 > oldest }) {
            if keep > 0 { samples.removeFirst(keep) }
        } else {
            samples.removeAll()
        }
    }

    public var isEmpty: Bool { samples.isEmpty }
    public var count: Int { samples.count }

    /// The trimmed mean of the samples in the window ending at `now`, or nil with none.
    public mutating func value(now: Int64) -> Double? {
        prune(now: now)
        guard !samples.isEmpty else { return nil }
        let sorted = samples.map(\.1).sorted()
        let cut = Int(Double(sorted.count) * trim)
        let kept = sorted[cut..<(sorted.count - cut)]
        return Double(kept.reduce(0, +)) / Double(kept.count)
    }
}
