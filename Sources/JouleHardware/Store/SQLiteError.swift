/// A failure of SQLite, naming the call, the database file, the statement and sqlite's own
/// message, e.g. `sqlite3_step /var/lib/joule/transfers.db: UNIQUE constraint failed:
/// transfers.destination (SQLITE_CONSTRAINT_UNIQUE) in "INSERT INTO transfers …"`.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sqlite call that failed, e.g. `sqlite3_step`.
    public var operation: String
    /// The database file.
    public var path: String
    /// The statement being run, when there was one.
    public var sql: String?
    /// sqlite's (extended) result code, e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE.
    public var code: Int32
    /// sqlite's message (sqlite3_errmsg).
    public var message: String

    public init(operation: String, path: String, sql: String?, code: Int32, message: String) {
        self.operation = operation
        self.path = path
        self.sql = sql
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of an extended one).
    public var primaryCode: Int32 { code & 0xff }

    /// SQLITE_BUSY or SQLITE_LOCKED: another connection held the lock past the busy timeout.
    public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }

    /// SQLITE_CONSTRAINT, e.g. a unique index refused a row.
    public var isConstraintViolation: Bool { primaryCode == 19 }

    /// `SQLITE_CONSTRAINT_UNIQUE`, or `SQLITE_CONSTRAINT (2323)` for codes without a name here.
    public var codeName: String {
        if let name = Self.extendedNames[code] { return name }
        let primary = Self.primaryNames[primaryCode] ?? "SQLITE_ERROR"
        return code == primaryCode ? primary : "\(primary) (\(code))"
    }

    public var description: String {
        var text = "\(operation) \(path): \(message) (\(codeName))"
        if let sql { text += " in \"\(sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }.joined(separator: " "))\"" }
        return text
    }

    // The codes are part of sqlite's stable ABI (sqlite3.h "Result Codes").
    private static let primaryNames: [Int32: String] = [
        1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY",
        6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT",
        10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL",
        14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA",
        18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE",
        22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT", 25: "SQLITE_RANGE",
        26: "SQLITE_NOTADB",
    ]
    private static let extendedNames: [Int32: String] = [
        275: "SQLITE_CONSTRAINT_CHECK", 787: "SQLITE_CONSTRAINT_FOREIGNKEY",
        1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
        2067: "SQLITE_CONSTRAINT_UNIQUE", 517: "SQLITE_BUSY_SNAPSHOT", 261: "SQLITE_BUSY_RECOVERY",
        1032: "SQLITE_READONLY_DBMOVED", 3338: "SQLITE_IOERR_FSYNC", 4874: "SQLITE_IOERR_SHMSIZE",
    ]
}
