import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleHistory

extension HistoryReader {
    /// The daemon's history when one owns `org.joule.Energy1` on the session or system bus,
    /// with the caller's own reports added; else (or when the daemon cannot answer, said
    /// through `warn`) the caller's state directory's file.
    package static func read(
        since: Double, until: Double, environment: [String: String], isRoot: Bool, warn: (String) -> Void
    ) async throws(Failure) -> HistoryTimeline {
        let own = StateDirectory.resolve(environment: environment, isRoot: isRoot)
        return try await DaemonClient.withDaemonOrLocal(environment: environment) { daemon throws(Failure) -> HistoryTimeline? in
            do throws(BusError) {
                var timeline = try await fetch(daemon, since: since, until: until)
                if let own { timeline.merge(HistoryEntry.reports(in: ReportStore(directory: own.reports)).entries) }
                return timeline
            } catch {
                warn("joule daemon: \(error); reading the history file instead")
                return nil
            }
        } local: { () throws(Failure) -> HistoryTimeline in
            guard let own else { throw .noStateDirectory }
            return try read(stateDirectory: own, since: since, until: until)
        }
    }

    /// At most this much time per `GetHistory` call: a week of minute rows with many sensors is
    /// a few megabytes, well inside a bus message (32 MiB on the system bus), a year is not.
    package static let window: Double = 7 * 86_400

    /// How far back a daemon's history can reach: HistoryRetention's year, and a week to spare.
    package static let oldestKept: Double = HistoryRetention().keep + window

    /// `GetHistory` week by week, joined. Windows share their boundary (both ends are
    /// inclusive), so rows the previous window already had are dropped, and a sleep across
    /// the seam comes once.
    package static func fetch(_ daemon: DaemonClient, since: Double, until: Double) async throws(BusError) -> HistoryTimeline {
        // Nothing older than the retention's year is kept: a range reaching further back would
        // only cost empty week-long calls (--since 100000d made 14,000 of them).
        var start = max(since, until - oldestKept)
        var joined: HistoryTimeline?
        repeat {
            let end = min(until, start + window)
            let part = try await daemon.history(since: start, until: end)
            if var whole = joined, !(part.since > start && whole.samples.isEmpty) {
                let last = whole.samples.last?.timestamp ?? -Double.infinity
                whole.samples += part.samples.filter { $0.timestamp > last }
                whole.until = part.until
                whole.merge(part.entries)
                whole.merge(sleeps: part.sleeps)
                joined = whole
            } else {
                // The first window, or one the daemon started at its first row (its history is
                // younger than the range): the windows before held no row, the range starts here.
                joined = part
            }
            start = end
        } while start < until
        return joined!
    }
}
