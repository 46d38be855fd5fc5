import Foundation
import JouleEnergy
import JouleTransferQueue

/// A throwaway state directory for the transfer queue (and what shares it), removed when
/// released; and the plainest queued download.
public final class TransferScratch: Sendable {
    public let path: String

    public init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-queue-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The queue's database in this directory.
    public var database: String { path + "/" + TransferStore.fileName }

    public static func download(_ destination: String, owner: UInt32 = 1000, id: String = Transfer.newID(), created: Double = 1_700_000_000) -> Transfer {
        Transfer(
            id: id, ownerUID: owner, url: "https://example.org/file.iso", destination: destination,
            createdAt: created, deadline: created + Transfer.defaultTimeout)
    }

    /// The laptop day as an older joule recorded it (its history inside `transfers.db`): 1011
    /// rows, 3033 temperature readings, 1 marker.
    public static let laptopDay = PackageRoot.url.appendingPathComponent("hw-fixtures/history/laptop-day/transfers.db").path

    /// A state directory holding a copy of the laptop day as an older joule left it, with the
    /// queue's own tables and one transfer beside the history.
    public static func legacyHistory() throws -> (TransferScratch, StateDirectory, Transfer) {
        let scratch = try TransferScratch()
        try FileManager.default.copyItem(atPath: laptopDay, toPath: scratch.database)
        let download = download("/srv/a.iso")
        try TransferStore(path: scratch.database).add(download)
        return (scratch, StateDirectory(path: scratch.path), download)
    }
}
