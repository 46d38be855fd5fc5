
/// The throughput floor as a pure rule over samples (seconds since the attempt began, bytes
/// received by then): once a whole window has passed, the bytes received within the last
/// window must reach `floor × window`. A server that hangs (no bytes at all, even before the
/// response head) trips it after one window.
public struct ThroughputMeter: Sendable {
    public let floor: Int
    public let window: Double
    private var samples: [(time: Double, bytes: Int64)] = [(0, 0)]

    public init(floor: Int, window: Duration) {
        self.floor = floor
        self.window = window.inSeconds
    }

    /// Records a sample; true when throughput over the last window fell below the floor.
    public mutating func record(time: Double, bytes: Int64) -> Bool {
        samples.append((time, bytes))
        guard time >= window, let start = samples.last(where: { $0.time <= time - window }) else { return false }
        samples.removeAll { $0.time < start.time }
        return Double(bytes - start.bytes) < Double(floor) * window
    }
}
