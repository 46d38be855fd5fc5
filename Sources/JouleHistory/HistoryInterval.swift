/// A row with the time it stands for: from its timestamp to the next row's, unless the next
/// row is more than `HistoryInterval.gapTolerance` late (the daemon was stopped, the machine
/// suspended), in which case it stands for its own span: a minute for a reading, an hour for
/// an hourly row, nothing for the daemon's last row before stopping.
package struct HistoryInterval: Sendable, Hashable {
    package var sample: HistorySample
    package var start: Double
    package var end: Double

    /// How late a row may come after the previous row's span before the time between is a gap.
    package static let gapTolerance: Double = 120
    /// The recorder's interval: what a reading stands for when no row follows it.
    package static let readingSpan: Double = 60

    /// The span a row stands for on its own.
    static func ownSpan(_ sample: HistorySample) -> Double {
        if let span = sample.span { return span }
        return sample.trigger == .stop ? 0 : readingSpan
    }

    /// The time a row's value is drawn at: a reading's moment, an aggregated row's middle.
    static func pointTime(_ sample: HistorySample) -> Double { sample.timestamp + (sample.span ?? 0) / 2 }

    /// Each row's interval, clipped to `since…until`; the rows must be oldest first.
    package static func intervals(_ samples: [HistorySample], since: Double, until: Double) -> [HistoryInterval] {
        var intervals: [HistoryInterval] = []
        intervals.reserveCapacity(samples.count)
        for (index, sample) in samples.enumerated() {
            let own = sample.timestamp + ownSpan(sample)
            var end = own
            if index + 1 < samples.count, sample.trigger != .stop {
                let next = samples[index + 1].timestamp
                // A reading holds until the next row; an aggregated row at least for its span.
                if next - own <= gapTolerance { end = sample.span == nil ? next : max(own, next) }
            }
            let start = max(since, sample.timestamp)
            intervals.append(HistoryInterval(sample: sample, start: start, end: max(start, min(until, end))))
        }
        return intervals
    }

    /// The stretches of `since…until` no interval covers that are longer than the tolerance.
    package static func gaps(_ intervals: [HistoryInterval], since: Double, until: Double) -> [ClosedRange<Double>] {
        var gaps: [ClosedRange<Double>] = []
        var covered = since
        for interval in intervals {
            if interval.start - covered > gapTolerance { gaps.append(covered...interval.start) }
            covered = max(covered, interval.end)
        }
        if until - covered > gapTolerance { gaps.append(covered...until) }
        return gaps
    }
}
