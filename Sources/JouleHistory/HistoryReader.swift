import JouleHardware
import JouleEnergy
import JouleWorkloads

/// Where `joule history` gets the history: from `joule daemon` over D-Bus when it runs
/// (`GetHistory`: it sees rows not yet written, and a user may read the system daemon's
/// history without reading its root-only file), else from a state directory's file, opened
/// read only, with that directory's resource reports as markers.
public enum HistoryReader {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case store(HistoryStoreError)
        case noStateDirectory

        public var description: String {
            switch self {
            case .store(let error): "\(error)"
            case .noStateDirectory: StateDirectory.missingMessage
            }
        }
    }

    /// The file in `directory` (`--state-dir`, or the caller's own state directory).
    public static func read(stateDirectory directory: StateDirectory, since: Double, until: Double) throws(Failure) -> HistoryTimeline {
        let path = directory.file(HistoryStore.fileName)
        do throws(HistoryStoreError) {
            let store = try HistoryStore(readingOnly: path)
            let (samples, entries) = try store.read(since: since, until: until)
            var timeline = HistoryTimeline(since: since, until: until, source: .file, database: path, samples: samples, entries: entries)
            timeline.startAtFirstRow(try store.firstRowTime())
            timeline.merge(HistoryEntry.reports(in: ReportStore(directory: directory.reports)).entries)
            return timeline
        } catch {
            throw .store(error)
        }
    }
}
