import SystemPackage
import JouleWire

/// A SQLite database file for state that must survive crashes (the transfer queue), usable
/// from any task.
///
/// Opened in WAL mode with `synchronous=FULL`: WAL lets readers on other connections proceed
/// while one writer commits, and FULL fsyncs the WAL at every commit, so a transaction whose
/// commit returned survives power loss too, not only a crash of the process. NORMAL would
/// also never corrupt the file, but could lose the last commits on power loss: a transfer
/// whose id was already handed to its client, or a `completed` after the file was renamed
/// into place. Commits here are state changes and progress checkpoints (seconds apart), so
/// the extra fsync costs nothing that matters.
///
/// One connection per instance, serialised by a mutex; every statement is prepared once and
/// reused. Another process (or instance) may open the same file: a writer waits up to
/// `busyTimeout` for the other's write lock before failing with SQLITE_BUSY.
public final class SQLiteDatabase: Sendable {
    public let path: String
    private let connection: Locked<SQLiteConnection>

    /// Opens the database at `path`, creating it with `mode` (0600: transfers carry URLs and
    /// headers that may hold credentials; sqlite gives its -wal and -shm files the same mode).
    public init(path: String, busyTimeout: Duration = .seconds(5), mode: UInt32 = 0o600) throws(SQLiteError) {
        self.path = path
        if FileSystem.kind(of: path) == nil {
            do throws(HardwareError) {
                let fd = try Syscalls.open(path, .writeOnly, options: [.create], permissions: FilePermissions(rawValue: mode))
                Syscalls.close(fd)
            } catch {
                throw SQLiteError(operation: "open", path: path, sql: nil, code: 14, message: error.description)
            }
        }
        let gateway = try SQLiteGateway(path: path, busyTimeoutMilliseconds: Self.milliseconds(busyTimeout))
        let journal = try gateway.run("PRAGMA journal_mode=WAL", []).first?[0].text
        guard journal?.lowercased() == "wal" else {
            throw SQLiteError(
                operation: "PRAGMA journal_mode", path: path, sql: "PRAGMA journal_mode=WAL", code: 1,
                message: "the file system refused WAL mode (journal mode is \(journal ?? "unknown"))")
        }
        try gateway.executeScript("PRAGMA synchronous=FULL")
        try gateway.executeScript(Self.cacheSize)
        connection = Locked(SQLiteConnection(gateway: gateway))
    }

    /// Opens an existing database for reading only, as a client reads the daemon's file: no
    /// write, no journal-mode change, and a missing file is an error (SQLITE_CANTOPEN), never
    /// a new empty database. A WAL file still needs its `-shm` beside it, or a directory where
    /// sqlite may create one.
    public init(readingOnly path: String, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        self.path = path
        guard FileSystem.kind(of: path) != nil else {
            throw SQLiteError(operation: "open", path: path, sql: nil, code: 14, message: "no such file")
        }
        let gateway = try SQLiteGateway(path: path, busyTimeoutMilliseconds: Self.milliseconds(busyTimeout), readOnly: true)
        try gateway.executeScript(Self.cacheSize)
        connection = Locked(SQLiteConnection(gateway: gateway))
    }

    /// A page cache of 256 KiB instead of sqlite's 2 MiB default: the queue and the history
    /// are small files that the kernel's page cache already holds, and a daemon that runs for
    /// months should not let each connection's cache creep up to 2 MiB of its RSS.
    private static let cacheSize = "PRAGMA cache_size=-256"

    private static func milliseconds(_ span: Duration) -> Int32 {
        Int32(clamping: span.components.seconds * 1000 + span.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so two
    /// writers never deadlock upgrading read locks; any error thrown by `body` (or by COMMIT)
    /// rolls everything back and is rethrown. `body` must not call back into this database.
    public func transaction<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { connection throws -> T in
            try connection.gateway.executeScript("BEGIN IMMEDIATE")
            do {
                let result = try body(connection)
                try connection.gateway.executeScript("COMMIT")
                return result
            } catch {
                if connection.gateway.inTransaction { try? connection.gateway.executeScript("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs `body` with the connection under the lock, outside any transaction of its own
    /// (each statement then commits alone).
    public func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        try connection.withLock { connection throws -> T in try body(connection) }
    }

    /// One statement in its own implicit transaction; returns the rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        try connection.withLock { connection throws(SQLiteError) -> Int in try connection.execute(sql, arguments) }
    }

    /// One query's rows.
    public func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        try connection.withLock { connection throws(SQLiteError) -> [SQLiteRow] in try connection.query(sql, arguments) }
    }

    /// The linked library's version, e.g. `3.40.1`.
    public static var libraryVersion: String { SQLiteGateway.libraryVersion }
}
