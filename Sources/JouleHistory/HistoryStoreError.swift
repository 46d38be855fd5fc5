import JouleHardware

/// Why the history could not be read or written; each case reads as a sentence for the CLI.
package enum HistoryStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no such file: nothing recorded there yet.
    case noFile(path: String)
    /// The file exists but holds no history (the daemon never recorded into it).
    case noHistory(path: String)
    /// The file was written by a newer joule; it is left untouched.
    case newerSchema(path: String, found: Int, supported: Int)
    /// A row that does not decode (edited by hand, or a bug).
    case corrupt(path: String, detail: String)
    /// The file (or its directory) cannot be read by this user: the errno, not "no history".
    case unreadable(path: String, errno: Errno)
    /// The daemon could not move an older joule's history out of `from` (`transfers.db`) into
    /// `to` (`history.db`); both are as they were.
    case move(from: String, to: String, SQLiteError)
    case database(SQLiteError)

    package var description: String {
        switch self {
        case .noFile(let path): "no history at \(path): joule daemon records it there while it runs"
        case .noHistory(let path): "\(path) holds no history yet (joule daemon records it there)"
        case .newerSchema(let path, let found, let supported):
            "the history in \(path) has schema version \(found), newer than this joule's \(supported): not touching it"
        case .corrupt(let path, let detail): "the history in \(path) is unreadable: \(detail)"
        case .unreadable(let path, let errno): "cannot read the history at \(path): \(errno)"
        case .move(let from, let to, let error): "cannot move the history from \(from) to \(to): \(error)"
        case .database(let error): "cannot read the history: \(error)"
        }
    }
}
