/// One part of a database's schema and the migrations that build it, versioned in a table of
/// its own, so several stores can share one file (the transfer queue and the history) and each
/// moves on, or is read by an older joule, without the other.
public struct SQLiteSchema: Sendable {
    /// The table holding this part's version (one row).
    public let versionTable: String
    /// `migrations[n]` takes version n to n + 1.
    public let migrations: [String]

    public init(versionTable: String, migrations: [String]) {
        self.versionTable = versionTable
        self.migrations = migrations
    }

    /// The version this joule writes.
    public var version: Int { migrations.count }

    public enum Failure: Error, Sendable, Hashable {
        /// The file was written by a newer joule; it is left untouched.
        case newer(found: Int, supported: Int)
        case database(SQLiteError)
    }

    /// Creates the version table when missing and runs the migrations the file lacks, all in
    /// one transaction: a crash or a failing script leaves the old version intact.
    public func migrate(_ database: SQLiteDatabase) throws(Failure) {
        do {
            try database.transaction { db in try migrate(inside: db) }
        } catch let error as Failure {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .database(SQLiteError(operation: "migrate", path: database.path, sql: nil, code: 1, message: "\(error)"))
        }
    }

    /// `migrate(_:)`'s work inside a transaction the caller holds (`db` is its connection), so
    /// that more can commit with it (the history moving into a file of its own); throws
    /// `Failure.newer` or `SQLiteError`, and the caller's transaction then rolls everything back.
    public func migrate(inside db: SQLiteConnection) throws {
        try db.executeScript("CREATE TABLE IF NOT EXISTS \(versionTable) (version INTEGER NOT NULL)")
        let found = Int(try db.query("SELECT version FROM \(versionTable)").first?[0].int64 ?? 0)
        guard found <= migrations.count else { throw Failure.newer(found: found, supported: migrations.count) }
        guard found < migrations.count else { return }
        for script in migrations[found...] { try db.executeScript(script) }
        try db.execute("DELETE FROM \(versionTable)")
        try db.execute("INSERT INTO \(versionTable) (version) VALUES (?)", [.integer(Int64(migrations.count))])
    }

    /// The file's version of this part: nil when the version table does not exist (a file
    /// this part never touched), without writing anything (works on a read-only connection).
    /// `schema` names an attached database instead of the connection's own file (`main`).
    public func storedVersion(_ database: SQLiteDatabase, schema: String = "main") throws(SQLiteError) -> Int? {
        let exists = try database.query(
            "SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", [.text(versionTable)])
        guard exists.first?[0].int64 == 1 else { return nil }
        return Int(try database.query("SELECT version FROM \(schema).\(versionTable)").first?[0].int64 ?? 0)
    }
}
