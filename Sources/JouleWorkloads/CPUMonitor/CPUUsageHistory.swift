import JouleHardware

/// CPU counters of one process (or thread) over the trailing window, oldest first.
package struct CPUUsageHistory: Sendable {
    package struct Point: Sendable {
        package var time: Double
        package var nanoseconds: UInt64
    }

    package private(set) var points: [Point] = []

    package init() {}

    /// Adds a sample. Counters of one identity never go down; if they do (a garbage read),
    /// the history restarts rather than reporting a negative or wrapped usage.
    package mutating func append(time: Double, nanoseconds: UInt64) {
        if let last = points.last, nanoseconds < last.nanoseconds || time < last.time { points.removeAll() }
        points.append(Point(time: time, nanoseconds: nanoseconds))
    }

    /// Drops samples older than the window ending at `now`; the oldest kept is the baseline.
    package mutating func trim(now: Double, window: Duration) {
        let cutoff = now - window - 1e-9
        if let first = points.firstIndex(where: { $0.time >= cutoff }), first > 0 {
            points.removeFirst(first)
        }
    }

    /// Keeps only the latest sample: a new window starts now (after a non-fatal action).
    package mutating func restart() {
        if let last = points.last { points = [last] }
    }

    /// CPU seconds spent between the baseline and the latest sample, and that span; nil
    /// until two samples exist.
    package func usage() -> WindowUsage? {
        guard let first = points.first, let last = points.last, points.count >= 2, last.time > first.time else {
            return nil
        }
        let spent = last.nanoseconds - first.nanoseconds  // append() guarantees order
        return WindowUsage(cpuSeconds: Double(spent) / 1e9, observedSeconds: last.time - first.time)
    }

    package var latest: Point? { points.last }
}
