import CSQLite

/// The one place where the hardware layer calls libsqlite3.
///
/// One connection and its prepared statements; not thread-safe by itself: `SQLiteDatabase`
/// serialises every use behind its mutex, so the connection is opened without sqlite's own
/// mutexes (SQLITE_OPEN_NOMUTEX). No sqlite pointer leaves this file; rows come back as values.
final class SQLiteGateway {
    let path: String
    private var db: OpaquePointer?
    /// Prepared once per SQL text and reused: the store runs the same few statements all day.
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating when missing) the database at `path`, with extended result codes and
    /// without following a symlink at the final component; `readOnly` opens an existing file
    /// for reading only (SQLITE_OPEN_READONLY: no write can reach it through this connection).
    init(path: String, busyTimeoutMilliseconds: Int32, readOnly: Bool = false) throws(SQLiteError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
            | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            // Even a failed open usually allocates a handle carrying the message.
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(handle)
            throw SQLiteError(operation: "sqlite3_open_v2", path: path, sql: nil, code: status, message: message)
        }
        db = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit { close() }

    /// Finalizes every statement and closes the connection; later calls fail with SQLITE_MISUSE.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    /// Runs `sql`, which may hold several statements and takes no arguments (schema scripts,
    /// pragmas, BEGIN/COMMIT).
    func executeScript(_ sql: String) throws(SQLiteError) {
        let db = try handle(sql)
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &message)
        guard status == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw SQLiteError(operation: "sqlite3_exec", path: path, sql: sql, code: sqlite3_extended_errcode(db), message: text)
        }
    }

    /// Runs one statement with `arguments` bound to its parameters in order, stepping it to the
    /// end; returns its rows (none for writes).
    func run(_ sql: String, _ arguments: [SQLiteValue]) throws(SQLiteError) -> [SQLiteRow] {
        let db = try handle(sql)
        let statement = try prepared(sql, db)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == arguments.count else {
            throw SQLiteError(
                operation: "bind", path: path, sql: sql, code: SQLITE_RANGE,
                message: "\(arguments.count) arguments for \(expected) parameters")
        }
        for (offset, value) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let v): status = sqlite3_bind_int64(statement, index, v)
            case .real(let v): status = sqlite3_bind_double(statement, index, v)
            case .text(let v): status = sqlite3_bind_text(statement, index, v, -1, joule_sqlite_transient())
            case .blob(let v):
                status = v.withUnsafeBytes { bytes in
                    // A zero-length blob with a nil pointer would bind NULL: use zeroblob instead.
                    bytes.isEmpty
                        ? sqlite3_bind_zeroblob(statement, index, 0)
                        : sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), joule_sqlite_transient())
                }
            }
            guard status == SQLITE_OK else { throw error("sqlite3_bind", sql, db, status) }
        }

        let count = Int(sqlite3_column_count(statement))
        let columns = (0..<count).map { String(cString: sqlite3_column_name(statement, Int32($0))) }
        var rows: [SQLiteRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error("sqlite3_step", sql, db, status) }
            var values: [SQLiteValue] = []
            values.reserveCapacity(count)
            for column in 0..<Int32(count) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let text = sqlite3_column_text(statement, column)
                    let length = Int(sqlite3_column_bytes(statement, column))
                    values.append(.text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""))
                case SQLITE_BLOB:
                    let bytes = sqlite3_column_blob(statement, column)
                    let length = Int(sqlite3_column_bytes(statement, column))
                    values.append(.blob(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []))
                default: values.append(.null)
                }
            }
            rows.append(SQLiteRow(columns: columns, values: values))
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { db.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Whether a transaction is open (false in autocommit mode).
    var inTransaction: Bool { db.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// The library's version, e.g. `3.40.1`.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    private func handle(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        guard let db else {
            throw SQLiteError(operation: "use", path: path, sql: sql, code: SQLITE_MISUSE, message: "the database is closed")
        }
        return db
    }

    private func prepared(_ sql: String, _ db: OpaquePointer) throws(SQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        // The tail points into the C string: read it while that string is alive.
        let (status, rest) = sql.withCString { text -> (Int32, String) in
            var tail: UnsafePointer<CChar>?
            let status = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            return (status, tail.map { String(cString: $0) } ?? "")
        }
        guard status == SQLITE_OK, let statement else { throw error("sqlite3_prepare_v3", sql, db, status) }
        if !rest.allSatisfy(\.isWhitespace) {
            sqlite3_finalize(statement)
            throw SQLiteError(
                operation: "sqlite3_prepare_v3", path: path, sql: sql, code: SQLITE_MISUSE,
                message: "more than one statement; use executeScript")
        }
        statements[sql] = statement
        return statement
    }

    private func error(_ operation: String, _ sql: String, _ db: OpaquePointer, _ status: Int32) -> SQLiteError {
        // The connection's code is extended (SQLITE_OPEN_EXRESCODE); fall back to the status.
        let code = sqlite3_extended_errcode(db)
        return SQLiteError(
            operation: operation, path: path, sql: sql, code: code & 0xff == status & 0xff ? code : status,
            message: String(cString: sqlite3_errmsg(db)))
    }
}
