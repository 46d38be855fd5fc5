import JouleHardware
import JouleEnergy
import JouleWorkloads

/// Where `joule history` gets the history: from `joule daemon` over D-Bus when it runs
/// (`GetHistory`: it sees rows not yet written, and a user may read the system daemon's
/// history without reading its root-only file), else from a state directory's file, opened
/// read only, with that directory's resource reports as markers.
package enum HistoryReader {
    package enum Failure: Error, Sendable, CustomStringConvertible {
        case store(HistoryStoreError)
        case noStateDirectory

        package var description: String {
            switch self {
            case .store(let error): "\(error)"
            case .noStateDirectory: StateDirectory.missingMessage
            }
        }
    }

    /// The file in `directory` (`--state-dir`, or the caller's own state directory).
    package static func read(stateDirectory directory: StateDirectory, since: Double, until: Double) throws(Failure) -> HistoryTimeline {
        do throws(HistoryStoreError) {
            let store = try openStore(in: directory)
            let (samples, entries) = try store.read(since: since, until: until)
            var timeline = HistoryTimeline(
                since: since, until: until, source: .file, database: store.database.path, samples: samples, entries: entries,
                sleeps: try store.readSleeps(since: since, until: until))
            timeline.startAtFirstRow(try store.firstRowTime())
            timeline.merge(HistoryEntry.reports(in: ReportStore(directory: directory.reports)).entries)
            return timeline
        } catch {
            throw .store(error)
        }
    }

    /// `directory`'s `history.db`, opened read only; while it holds no history (absent, or
    /// left empty by a crash before the daemon moved the history in) an older joule's
    /// `transfers.db` that does. A client never moves it: only the daemon writes. When neither
    /// holds one, the error names `history.db`; any other failure names the file it is about.
    static func openStore(in directory: StateDirectory) throws(HistoryStoreError) -> HistoryStore {
        let failure: HistoryStoreError
        do throws(HistoryStoreError) {
            return try HistoryStore(readingOnly: directory.file(HistoryStore.fileName))
        } catch {
            switch error {
            case .noFile, .noHistory: failure = error
            default: throw error
            }
        }
        do throws(HistoryStoreError) {
            return try HistoryStore(readingOnly: directory.file(HistoryStore.legacyFileName))
        } catch {
            switch error {
            case .noFile, .noHistory: throw failure
            default: throw error
            }
        }
    }
}
