import Foundation
@testable import JouleHardware
import JouleTesting
import Testing

@Suite struct SQLiteDatabaseTests {
    /// A throwaway directory, removed when released.
    final class Scratch: Sendable {
        let path: String
        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-sqlite-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        var database: String { path + "/test.db" }
    }

    @Test func everyStorageClassRoundTrips() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.database)
        try db.execute("CREATE TABLE t (v)")
        let values: [SQLiteValue] = [
            .null, .integer(0), .integer(.max), .integer(.min), .real(-1.5), .real(1e300), .text(""),
            .text("naïve ✓ \"quoted\"\nline"), .blob([]), .blob([0, 1, 2, 255]),
        ]
        for value in values { #expect(try db.execute("INSERT INTO t (v) VALUES (?)", [value]) == 1) }
        let rows = try db.query("SELECT v, typeof(v) AS kind FROM t ORDER BY rowid")
        #expect(rows.map { $0["v"] } == values)
        #expect(rows.map { $0["kind"].text } == [
            "null", "integer", "integer", "integer", "real", "real", "text", "text", "blob", "blob",
        ])
        #expect(rows[0].columns == ["v", "kind"])
    }

    @Test func opensInWALWithFullSyncAndAPrivateMode() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.database)
        #expect(try db.query("PRAGMA journal_mode").first?[0].text == "wal")
        #expect(try db.query("PRAGMA synchronous").first?[0].int64 == 2)  // FULL
        try db.execute("CREATE TABLE t (v)")
        for file in [scratch.database, scratch.database + "-wal"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
        #expect(!SQLiteDatabase.libraryVersion.isEmpty)
    }

    @Test func aFailedTransactionLeavesNothing() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.database)
        try db.execute("CREATE TABLE t (v INTEGER NOT NULL)")
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try db.transaction { c in
                try c.execute("INSERT INTO t (v) VALUES (1)")
                #expect(c.isInTransaction)
                throw Refused()
            }
        }
        #expect(throws: SQLiteError.self) {
            try db.transaction { c in
                try c.execute("INSERT INTO t (v) VALUES (2)")
                try c.execute("INSERT INTO t (v) VALUES (NULL)")
            }
        }
        #expect(try db.query("SELECT count(*) FROM t").first?[0].int64 == 0)
        let sum = try db.transaction { c in
            try c.execute("INSERT INTO t (v) VALUES (3)")
            try c.execute("INSERT INTO t (v) VALUES (4)")
            return try c.query("SELECT sum(v) FROM t").first?[0].int64
        }
        #expect(sum == 7)
        try db.withConnection { c in #expect(!c.isInTransaction) }
    }

    @Test func errorsNameTheStatementAndSqlitesMessage() throws {
        let scratch = try Scratch()
        let db = try SQLiteDatabase(path: scratch.database)
        try db.execute("CREATE TABLE t (v UNIQUE)")
        try db.execute("INSERT INTO t (v) VALUES (?)", [.integer(1)])
        do {
            try db.execute("INSERT INTO t (v) VALUES (?)", [.integer(1)])
            Issue.record("a duplicate was accepted")
        } catch {
            #expect(error.isConstraintViolation)
            #expect(error.codeName == "SQLITE_CONSTRAINT_UNIQUE")
            #expect(error.description == "sqlite3_step \(scratch.database): UNIQUE constraint failed: t.v (SQLITE_CONSTRAINT_UNIQUE) in \"INSERT INTO t (v) VALUES (?)\"")
        }
        do {
            _ = try db.query("SELEC nonsense")
            Issue.record("bad SQL was accepted")
        } catch {
            #expect(error.operation == "sqlite3_prepare_v3")
            #expect(error.message.contains("syntax error"))
            #expect(error.sql == "SELEC nonsense")
        }
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t (v) VALUES (?)", []) }
        #expect(throws: SQLiteError.self) { try db.execute("SELECT 1; SELECT 2") }
        // The statement stays usable after each failure.
        #expect(try db.execute("INSERT INTO t (v) VALUES (?)", [.integer(2)]) == 1)
    }

    @Test func anUnopenableFileSaysWhy() throws {
        let scratch = try Scratch()
        do {
            _ = try SQLiteDatabase(path: scratch.path + "/missing/test.db")
            Issue.record("opened a file in a missing directory")
        } catch {
            #expect(error.description.contains(scratch.path + "/missing/test.db"))
            #expect(error.description.contains("ENOENT"))
        }
        try "not a database, but long enough to have a header.....................................................".write(
            toFile: scratch.database, atomically: false, encoding: .utf8)
        #expect(throws: SQLiteError.self) { _ = try SQLiteDatabase(path: scratch.database) }
    }

    /// WAL: a reader on a second connection sees the last commit while a writer holds an open
    /// transaction, and a second writer waits for the first instead of failing.
    @Test func twoConnectionsShareTheFile() async throws {
        let scratch = try Scratch()
        let first = try SQLiteDatabase(path: scratch.database)
        try first.execute("CREATE TABLE t (v INTEGER)")
        try first.execute("INSERT INTO t (v) VALUES (1)")
        let second = try SQLiteDatabase(path: scratch.database, busyTimeout: .seconds(10))
        try first.transaction { c in
            try c.execute("UPDATE t SET v = 2")
            // The other connection reads the committed value without waiting.
            #expect(try second.query("SELECT v FROM t").first?[0].int64 == 1)
        }
        #expect(try second.query("SELECT v FROM t").first?[0].int64 == 2)

        // Two writers on two connections, each incrementing 200 times in its own transactions,
        // each on a thread of its own: a writer waits for the other's lock in SQLite's busy
        // handler, which sleeps, and must not hold a cooperative thread meanwhile.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for db in [first, second] {
                group.addTask {
                    try await onThread {
                        for _ in 0..<200 {
                            try db.transaction { c in
                                let v = try c.query("SELECT v FROM t").first?[0].int64 ?? 0
                                try c.execute("UPDATE t SET v = ?", [.integer(v + 1)])
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.query("SELECT v FROM t").first?[0].int64 == 402)

        // A writer held past the other's busy timeout fails with SQLITE_BUSY, naming BEGIN.
        let impatient = try SQLiteDatabase(path: scratch.database, busyTimeout: .milliseconds(50))
        try first.transaction { c in
            try c.execute("UPDATE t SET v = 0")
            do {
                try impatient.transaction { c in try c.execute("UPDATE t SET v = 1") }
                Issue.record("two writers at once")
            } catch let error as SQLiteError {
                #expect(error.isBusy)
                #expect(error.sql == "BEGIN IMMEDIATE")
            }
        }
    }
}
