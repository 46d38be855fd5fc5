import JouleHardware

/// Why the transfer queue refused or failed an operation; each case reads as a sentence for
/// the CLI and D-Bus errors.
public enum TransferStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(id: String)
    /// Only a transfer's owner or root may see or touch it.
    case notPermitted(id: String, uid: UInt32)
    /// Another live transfer already writes this destination.
    case destinationInUse(destination: String, existingID: String)
    /// The transfer is completed, failed or cancelled and can no longer change.
    case alreadyFinished(id: String, state: String)
    /// A value the queue cannot store (a header with a newline, an update changing the id).
    case invalid(String)
    /// The file was written by a newer joule; it is left untouched.
    case newerSchema(found: Int, supported: Int)
    /// A row that does not decode (edited by hand, or a bug).
    case corrupt(id: String, detail: String)
    case database(SQLiteError)

    public var description: String {
        switch self {
        case .notFound(let id): "no transfer \(id)"
        case .notPermitted(let id, let uid): "transfer \(id) belongs to another user (uid \(uid) may not see it)"
        case .destinationInUse(let destination, let existing): "\(destination) is already the destination of transfer \(existing)"
        case .alreadyFinished(let id, let state): "transfer \(id) is already \(state)"
        case .invalid(let detail): "invalid transfer: \(detail)"
        case .newerSchema(let found, let supported):
            "the transfer queue has schema version \(found), newer than this joule's \(supported): not touching it"
        case .corrupt(let id, let detail): "transfer \(id) in the queue is unreadable: \(detail)"
        case .database(let error): "transfer queue: \(error)"
        }
    }
}
