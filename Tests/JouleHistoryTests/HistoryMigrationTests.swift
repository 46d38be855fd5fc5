import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleTransferQueue
@testable import JouleHistory
import JouleTesting
import Testing

/// The history moving out of the transfer queue's `transfers.db` into `history.db` (issue 33):
/// the daemon copies in one transaction and drops in a second, a crash between them only
/// drops, a newer schema in either file is refused by name, and a client reads an older joule's
/// `transfers.db` while there is no `history.db`, never moving anything.
@Suite struct HistoryMigrationTests {
    typealias Scratch = TransferScratch

    /// The laptop day (hw-fixtures/history/laptop-day/transfers.db): 1011 rows, 3033 readings, 1 marker.
    static let fixture = TransferScratch.laptopDay
    static let day = (since: 1_773_100_800.0, until: 1_773_187_200.0)
    static let moved = ["history_entries": 1, "history_samples": 1011, "history_temperatures": 3033]

    /// Every history table's rows, in a stable order.
    static let tables = [
        "history_samples": "ORDER BY id", "history_temperatures": "ORDER BY sample_id, position",
        "history_entries": "ORDER BY time, id", "history_schema_version": "",
    ]

    static func rows(_ path: String) throws -> [String: [SQLiteRow]] {
        let database = try SQLiteDatabase(readingOnly: path)
        var rows: [String: [SQLiteRow]] = [:]
        for (table, order) in tables { rows[table] = try database.query("SELECT * FROM \(table) \(order)") }
        return rows
    }

    static func historyTables(_ path: String) throws -> [String] {
        try SQLiteDatabase(readingOnly: path)
            .query("SELECT name FROM sqlite_master WHERE name LIKE 'history%' ORDER BY name").compactMap { $0[0].text }
    }

    static func legacyDirectory() throws -> (Scratch, StateDirectory, Transfer) { try TransferScratch.legacyHistory() }

    /// The rows the move copies: every table's but the version's, which the move brings from
    /// the older joule's (1) up to this joule's, adding `history_sleeps` (issue 36).
    static func copied(_ rows: [String: [SQLiteRow]]) -> [String: [SQLiteRow]] { rows.filter { $0.key != "history_schema_version" } }

    /// history.db holds `before`'s rows at this joule's version, with an empty sleeps table.
    static func expectMoved(_ history: String, _ before: [String: [SQLiteRow]], _ comment: Comment? = nil) throws {
        #expect(Self.copied(try Self.rows(history)) == Self.copied(before), comment)
        #expect(before["history_schema_version"]?.first?[0].int64 == 1, comment)
        let database = try SQLiteDatabase(readingOnly: history)
        #expect(try HistoryStore.schema.storedVersion(database) == HistoryStore.schema.version, comment)
        #expect(try database.query("SELECT count(*) FROM history_sleeps").first?[0].int64 == 0, comment)
    }

    /// Opens the daemon's store, returning what it moved.
    static func open(_ directory: StateDirectory) throws -> (HistoryStore, [HistoryStore.LegacyMove]) {
        let moves = Locked<[HistoryStore.LegacyMove]>([])
        let store = try HistoryStore(stateDirectory: directory) { move in moves.withLock { $0.append(move) } }
        return (store, moves.withLock { $0 })
    }

    @Test func theDayMovesOutOfTransfersDBWithEveryRowAndTheQueueStays() throws {
        let (scratch, directory, download) = try Self.legacyDirectory()
        let before = try Self.rows(scratch.database)
        // The daemon has the queue open while the history moves.
        let queue = try TransferStore(path: scratch.database)
        let (store, moves) = try Self.open(directory)
        let history = directory.file(HistoryStore.fileName)
        #expect(store.database.path == history)
        #expect(moves == [HistoryStore.LegacyMove(from: scratch.database, to: history, copied: Self.moved, dropFailure: nil)])
        #expect(moves.first?.description
            == "history: moved 1011 rows (3033 temperature readings) and 1 marker from \(scratch.database) to \(history)")
        try Self.expectMoved(history, before)
        #expect(try store.read(since: Self.day.since, until: Self.day.until).samples.count == 1011)
        // transfers.db is detached again: the history's writes never lock the queue.
        #expect(try store.database.query("PRAGMA database_list").compactMap { $0[1].text } == ["main"])
        // transfers.db is the queue's alone again, and the queue works on.
        #expect(try Self.historyTables(scratch.database) == [])
        #expect(try queue.get(download.id) == download)
        let reopened = try TransferStore(path: scratch.database)
        #expect(try reopened.version() == TransferStore.schemaVersion)
        let another = TransferScratch.download("/srv/b.iso")
        try reopened.add(another)
        #expect(try reopened.get(another.id) == another)
        // The next start finds nothing to move.
        #expect(try Self.open(directory).1 == [])
        try Self.expectMoved(history, before)
    }

    /// history.db committed, then the daemon died before the drop: both hold the history.
    @Test func aCrashBetweenTheCopyAndTheDropOnlyDrops() throws {
        let (scratch, directory, download) = try Self.legacyDirectory()
        let history = directory.file(HistoryStore.fileName)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: history)
        // A row written to history.db after the copy tells it from a second copy.
        try HistoryStore(database: SQLiteDatabase(path: history)).append([HistoryRows.sample(Self.day.until + 60)])
        let (store, moves) = try Self.open(directory)
        #expect(moves == [HistoryStore.LegacyMove(from: scratch.database, to: history, copied: [:], dropFailure: nil)])
        #expect(moves.first?.description == "history: dropped the history an older joule left in \(scratch.database) (\(history) holds it already)")
        #expect(try store.database.query("SELECT count(*) FROM history_samples").first?[0].int64 == 1012)
        #expect(try Self.historyTables(scratch.database) == [])
        #expect(try TransferStore(path: scratch.database).get(download.id) == download)
    }

    /// The daemon died inside the first transaction: history.db exists without a schema.
    @Test func anEmptyHistoryDBLeftByACrashIsMovedInto() throws {
        for leftover in ["an empty file", "a database without tables"] {
            let (scratch, directory, _) = try Self.legacyDirectory()
            let before = try Self.rows(scratch.database)
            let history = directory.file(HistoryStore.fileName)
            if leftover == "an empty file" {
                #expect(FileManager.default.createFile(atPath: history, contents: Data()))
            } else {
                let database = try SQLiteDatabase(path: history)
                #expect(throws: Error.self) {
                    try database.transaction { db in
                        try HistoryStore.schema.migrate(inside: db)
                        throw SQLiteError(operation: "crash", path: history, sql: nil, code: 1, message: "crash")
                    }
                }
            }
            let (_, moves) = try Self.open(directory)
            #expect(moves.map(\.copied) == [Self.moved], "\(leftover)")
            try Self.expectMoved(history, before, "\(leftover)")
            #expect(try Self.historyTables(scratch.database) == [], "\(leftover)")
        }
    }

    @Test func aNewerHistoryInTransfersDBIsRefusedByNameAndKept() throws {
        let (scratch, directory, _) = try Self.legacyDirectory()
        try SQLiteDatabase(path: scratch.database).execute("UPDATE history_schema_version SET version = 9")
        let supported = HistoryStore.schema.version
        let refusal = #expect(throws: HistoryStoreError.newerSchema(path: scratch.database, found: 9, supported: supported)) {
            _ = try Self.open(directory)
        }
        #expect(refusal?.description
            == "the history in \(scratch.database) has schema version 9, newer than this joule's \(supported): not touching it")
        #expect(try Self.rows(scratch.database)["history_samples"]?.count == 1011)
        #expect(try HistoryStore.schema.storedVersion(SQLiteDatabase(readingOnly: directory.file(HistoryStore.fileName))) == nil)
        // A client reading the directory meanwhile is refused by the same name.
        #expect(throws: HistoryReader.Failure.self) {
            _ = try HistoryReader.read(stateDirectory: directory, since: Self.day.since, until: Self.day.until)
        }
        #expect(throws: HistoryStoreError.newerSchema(path: scratch.database, found: 9, supported: supported)) {
            _ = try HistoryReader.openStore(in: directory)
        }
    }

    @Test func aNewerHistoryDBIsRefusedByNameAndTransfersDBKeepsItsHistory() throws {
        let (scratch, directory, _) = try Self.legacyDirectory()
        let history = directory.file(HistoryStore.fileName)
        let database = try SQLiteDatabase(path: history)
        try database.execute("CREATE TABLE history_schema_version (version INTEGER NOT NULL)")
        try database.execute("INSERT INTO history_schema_version (version) VALUES (9)")
        let supported = HistoryStore.schema.version
        #expect(throws: HistoryStoreError.newerSchema(path: history, found: 9, supported: supported)) { _ = try Self.open(directory) }
        #expect(try Self.rows(scratch.database)["history_samples"]?.count == 1011)
        #expect(throws: HistoryStoreError.newerSchema(path: history, found: 9, supported: supported)) {
            _ = try HistoryReader.openStore(in: directory)
        }
    }

    /// Until history.db holds a history, transfers.db must be read: a history.db started
    /// beside a history that was not moved would see it dropped at the next start.
    @Test func anUnreadableTransfersDBStopsTheMoveUntilHistoryDBHoldsTheHistory() throws {
        let scratch = try Scratch()
        let directory = StateDirectory(path: scratch.path)
        try Data("not a database at all\n".utf8).write(to: URL(fileURLWithPath: scratch.database))
        let history = directory.file(HistoryStore.fileName)
        let refusal = #expect(throws: HistoryStoreError.self) { _ = try Self.open(directory) }
        #expect(refusal?.description.hasPrefix("cannot move the history from \(scratch.database) to \(history): ") == true,
                "\(String(describing: refusal))")
        // With a history in history.db, the daemon records on and says what it could not drop.
        try HistoryStore(database: SQLiteDatabase(path: history)).append([HistoryRows.sample(1_000)])
        let (store, moves) = try Self.open(directory)
        #expect(try store.read(since: 0, until: 2_000).samples.count == 1)
        #expect(moves.count == 1)
        #expect(moves.first?.copied == [:])
        #expect(moves.first?.dropFailure != nil)
        #expect(moves.first?.description.hasPrefix(
            "history: cannot drop what an older joule left in \(scratch.database) (\(history) holds the history; the next start tries again): ") == true)
    }

    @Test func aClientReadsAnOlderJoulesTransfersDBWithoutMovingIt() throws {
        let (scratch, directory, _) = try Self.legacyDirectory()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.database))
        let timeline = try HistoryReader.read(stateDirectory: directory, since: Self.day.since, until: Self.day.until)
        #expect(timeline.database == scratch.database)
        #expect(timeline.source == .file)
        #expect(timeline.samples.count == 1011)
        #expect(!FileManager.default.fileExists(atPath: directory.file(HistoryStore.fileName)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.database)) == bytes)
        // A history.db left empty by a crash holds no history yet: transfers.db still does.
        #expect(FileManager.default.createFile(atPath: directory.file(HistoryStore.fileName), contents: Data()))
        #expect(try HistoryReader.read(stateDirectory: directory, since: Self.day.since, until: Self.day.until).database == scratch.database)
        // Once the daemon moved it, history.db is read.
        _ = try Self.open(directory)
        let moved = try HistoryReader.read(stateDirectory: directory, since: Self.day.since, until: Self.day.until)
        #expect(moved.database == directory.file(HistoryStore.fileName))
        #expect(moved.samples == timeline.samples)
        #expect(moved.entries == timeline.entries)
    }

    @Test func withoutAHistoryInEitherFileTheErrorNamesHistoryDB() throws {
        let scratch = try Scratch()
        let directory = StateDirectory(path: scratch.path)
        let history = directory.file(HistoryStore.fileName)
        #expect(throws: HistoryStoreError.noFile(path: history)) { _ = try HistoryReader.openStore(in: directory) }
        // The queue alone (a transfers.db without history tables) is not a history either.
        _ = try TransferStore(path: scratch.database)
        #expect(throws: HistoryStoreError.noFile(path: history)) { _ = try HistoryReader.openStore(in: directory) }
        let failure = #expect(throws: HistoryReader.Failure.self) { _ = try HistoryReader.read(stateDirectory: directory, since: 0, until: 1) }
        #expect(failure?.description == "no history at \(history): joule daemon records it there while it runs")
        #expect(FileManager.default.createFile(atPath: history, contents: Data()))
        #expect(throws: HistoryStoreError.noHistory(path: history)) { _ = try HistoryReader.openStore(in: directory) }
        // Nor does the daemon find anything to move from it.
        #expect(try Self.open(directory).1 == [])
        #expect(try Self.historyTables(scratch.database) == [])
    }
}
