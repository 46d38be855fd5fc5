import JouleHardware
import JouleEnergy

/// What `joule history` reads and draws: the rows, the markers and the sleeps between two
/// times, and where they came from. Its JSON is `joule history --json` and the daemon's `GetHistory`.
package struct HistoryTimeline: Sendable, Hashable {
    /// Where the rows came from: the daemon over D-Bus, or the database file read directly.
    package enum Source: String, Sendable, Hashable {
        case daemon, file
    }

    package var since: Double
    package var until: Double
    package var source: Source
    /// The database file.
    package var database: String?
    /// Oldest first.
    package var samples: [HistorySample]
    /// Oldest first.
    package var entries: [HistoryEntry]
    /// The sleeps overlapping the range, oldest first (issue 36): the machine's, seen by everyone
    /// who may read the history.
    package var sleeps: [SleepRecord]

    package init(
        since: Double, until: Double, source: Source, database: String?, samples: [HistorySample], entries: [HistoryEntry],
        sleeps: [SleepRecord] = []
    ) {
        self.since = since
        self.until = until
        self.source = source
        self.database = database
        self.samples = samples
        self.entries = entries
        self.sleeps = sleeps
    }

    /// Every temperature sensor in the rows, in order of first appearance, with its latest label.
    package var sensors: [HistoryTemperature] {
        var order: [String] = []
        var labels: [String: String?] = [:]
        for sample in samples {
            for reading in sample.temperatures {
                if labels[reading.sensor] == nil { order.append(reading.sensor) }
                if reading.label != nil || labels[reading.sensor] == nil { labels[reading.sensor] = .some(reading.label) }
            }
        }
        return order.map { HistoryTemperature(sensor: $0, label: labels[$0] ?? nil, celsius: nil) }
    }

    /// Starts the range at `first`, the history's oldest row, when that is inside it: a history
    /// younger than the range (a new daemon, asked for the default 24 h) was never recorded
    /// before it, so that time is not "no data". Markers and sleeps before it go with it.
    package mutating func startAtFirstRow(_ first: Double?) {
        guard let first, first > since, first <= until else { return }
        since = first
        entries.removeAll { $0.timestamp < first }
        sleeps.removeAll { $0.end < first }
    }

    /// Adds sleeps not already present, keeping them oldest first: a sleep across the seam of
    /// two `GetHistory` windows comes in both.
    package mutating func merge(sleeps more: [SleepRecord]) {
        for sleep in more where !sleeps.contains(sleep) { sleeps.append(sleep) }
        sleeps.sort { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// Adds markers (reports read by the client) that are in range and not already present,
    /// keeping the entries in time order.
    package mutating func merge(_ more: [HistoryEntry]) {
        var known = Set(entries.map { "\($0.kind.rawValue)/\($0.id)" })
        for entry in more where entry.timestamp >= since && entry.timestamp <= until {
            guard known.insert("\(entry.kind.rawValue)/\(entry.id)").inserted else { continue }
            entries.append(entry)
        }
        entries.sort { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }
    }
}
