import JouleHardware
import JouleEnergy

/// The transfer queue: one SQLite file in the daemon's state directory (`transfers.db`), WAL
/// mode, and every change one transaction, so a crash leaves each transfer as of its last
/// committed change.
///
/// Access: `visibleTo` is the caller's uid (from the D-Bus sender's credentials); a transfer
/// is visible to its owner and to root (0). nil means the daemon itself, which sees everything.
public final class TransferStore: Sendable {
    /// The schema this joule writes. Each entry of `migrations` moves the file one version up.
    public static let schemaVersion = 1
    public static let fileName = "transfers.db"

    /// `migrations[n]` takes version n to n + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE transfers (
            id TEXT PRIMARY KEY NOT NULL,
            owner_uid INTEGER NOT NULL CHECK (owner_uid >= 0),
            url TEXT NOT NULL,
            method TEXT NOT NULL CHECK (method IN ('GET', 'PUT', 'POST')),
            headers TEXT NOT NULL DEFAULT '',
            destination TEXT,
            upload_source TEXT,
            discretionary INTEGER NOT NULL CHECK (discretionary IN (0, 1)),
            unmetered_only INTEGER NOT NULL CHECK (unmetered_only IN (0, 1)),
            require_ac INTEGER NOT NULL CHECK (require_ac IN (0, 1)),
            priority TEXT NOT NULL CHECK (priority IN ('high', 'normal', 'low')),
            batch TEXT,
            sha256 TEXT,
            on_complete TEXT,
            session_identifier TEXT,
            created_at REAL NOT NULL,
            begin_after REAL,
            deadline REAL NOT NULL,
            strong_etag TEXT,
            last_modified TEXT,
            total_length INTEGER CHECK (total_length >= 0),
            durable_bytes INTEGER NOT NULL CHECK (durable_bytes >= 0),
            attempts_without_progress INTEGER NOT NULL CHECK (attempts_without_progress >= 0),
            last_error TEXT,
            state TEXT NOT NULL
                CHECK (state IN ('waiting', 'running', 'suspended', 'retrying', 'completed', 'failed', 'cancelled')),
            waiting_for TEXT NOT NULL DEFAULT '',
            state_time REAL CHECK (state <> 'retrying' OR state_time IS NOT NULL),
            failure_reason TEXT CHECK (state <> 'failed' OR failure_reason IS NOT NULL),
            CHECK ((method = 'GET') = (destination IS NOT NULL AND upload_source IS NULL))
        );
        -- At most one live transfer per destination; finished ones keep theirs for history.
        CREATE UNIQUE INDEX transfers_live_destination ON transfers (destination)
            WHERE state IN ('waiting', 'running', 'suspended', 'retrying');
        CREATE INDEX transfers_owner ON transfers (owner_uid);
        CREATE INDEX transfers_session ON transfers (session_identifier) WHERE session_identifier IS NOT NULL;
        """
    ]

    public let database: SQLiteDatabase

    /// Opens (creating) the queue at `path` and brings its schema up to date.
    public convenience init(path: String) throws(TransferStoreError) {
        let database: SQLiteDatabase
        do throws(SQLiteError) {
            database = try SQLiteDatabase(path: path)
        } catch {
            throw .database(error)
        }
        try self.init(database: database)
    }

    /// The queue in `directory`'s `transfers.db`.
    public convenience init(stateDirectory: StateDirectory) throws(TransferStoreError) {
        try self.init(path: stateDirectory.file(Self.fileName))
    }

    public convenience init(database: SQLiteDatabase) throws(TransferStoreError) {
        try self.init(database: database, migrations: Self.migrations)
    }

    init(database: SQLiteDatabase, migrations: [String]) throws(TransferStoreError) {
        self.database = database
        try Self.migrate(database, migrations)
    }

    /// Creates the version table (`schema_version`) when missing and runs the migrations the
    /// file lacks, all in one transaction: a crash mid-migration leaves the old version intact.
    /// An older joule's history kept its own version table in this file (`HistoryStore` moves it out).
    static func migrate(_ database: SQLiteDatabase, _ migrations: [String]) throws(TransferStoreError) {
        do {
            try SQLiteSchema(versionTable: "schema_version", migrations: migrations).migrate(database)
        } catch {
            switch error {
            case .newer(let found, let supported): throw .newerSchema(found: found, supported: supported)
            case .database(let error): throw storeError(error)
            }
        }
    }

    /// The file's schema version.
    public func version() throws(TransferStoreError) -> Int {
        try Self.run { Int(try database.query("SELECT version FROM schema_version").first?[0].int64 ?? 0) }
    }

    // MARK: changes

    /// Adds a new transfer. Refuses a second live transfer with the same destination, naming
    /// the one that holds it.
    @discardableResult
    public func add(_ transfer: Transfer) throws(TransferStoreError) -> Transfer {
        let values = try TransferRow.values(transfer)
        try Self.run {
            try database.transaction { db in
                if let destination = transfer.destination, transfer.state.isLive {
                    try Self.checkDestination(destination, except: transfer.id, db)
                }
                try db.execute(TransferRow.insert, values)
            }
        }
        return transfer
    }

    /// Reads the transfer, lets `change` edit it and writes it back, in one transaction.
    /// Final transfers do not change (`alreadyFinished`): a progress report racing a cancel
    /// loses. The id and owner cannot change.
    @discardableResult
    public func update(
        _ id: String, visibleTo uid: UInt32? = nil, _ change: (inout Transfer) throws -> Void
    ) throws -> Transfer {
        try Self.mapSQLite {
            try database.transaction { db in
                var transfer = try Self.fetch(id, visibleTo: uid, db)
                guard transfer.state.isLive else {
                    throw TransferStoreError.alreadyFinished(id: id, state: transfer.state.name)
                }
                let original = transfer
                try change(&transfer)
                guard transfer.id == original.id, transfer.ownerUID == original.ownerUID else {
                    throw TransferStoreError.invalid("an update cannot change a transfer's id or owner")
                }
                if let destination = transfer.destination, transfer.state.isLive {
                    try Self.checkDestination(destination, except: id, db)
                }
                var values = try TransferRow.values(transfer)
                values.append(values.removeFirst())  // the id goes last, for WHERE
                try db.execute(TransferRow.update, values)
                return transfer
            }
        }
    }

    /// Cancels a live transfer on behalf of `uid` (its owner or root); returns it as cancelled.
    @discardableResult
    public func cancel(_ id: String, visibleTo uid: UInt32? = nil) throws(TransferStoreError) -> Transfer {
        do {
            return try update(id, visibleTo: uid) { $0.state = .cancelled }
        } catch let error as TransferStoreError {
            throw error
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// Removes a transfer's row, whatever its state (forgetting finished transfers).
    public func delete(_ id: String, visibleTo uid: UInt32? = nil) throws(TransferStoreError) {
        try Self.run {
            try database.transaction { db in
                _ = try Self.fetch(id, visibleTo: uid, db)
                try db.execute("DELETE FROM transfers WHERE id = ?", [.text(id)])
            }
        }
    }

    /// After a crash (at daemon start): every `running` transfer becomes `suspended` without
    /// counting an attempt. Returns them, so their `.part` files can be truncated back to
    /// `durableBytes` before they resume.
    public func recoverAfterCrash() throws(TransferStoreError) -> [Transfer] {
        try Self.run {
            try database.transaction { db in
                let rows = try db.query("\(TransferRow.select) WHERE state = 'running' \(TransferRow.order)")
                var recovered: [Transfer] = []
                for row in rows {
                    var transfer = try TransferRow.decode(row)
                    transfer.state = .suspended(until: nil)
                    recovered.append(transfer)
                }
                try db.execute("UPDATE transfers SET state = 'suspended', state_time = NULL WHERE state = 'running'")
                return recovered
            }
        }
    }

    // MARK: reading

    /// One transfer; `notPermitted` when `uid` is neither its owner nor root.
    public func get(_ id: String, visibleTo uid: UInt32? = nil) throws(TransferStoreError) -> Transfer {
        try Self.run { try database.withConnection { db in try Self.fetch(id, visibleTo: uid, db) } }
    }

    /// The transfers `uid` may see (all for root or nil), optionally only one session's or
    /// only live ones; high priority first, then oldest first.
    public func list(
        visibleTo uid: UInt32? = nil, session: String? = nil, liveOnly: Bool = false
    ) throws(TransferStoreError) -> [Transfer] {
        var clauses: [String] = []
        var arguments: [SQLiteValue] = []
        if let uid, uid != 0 {
            clauses.append("owner_uid = ?")
            arguments.append(.integer(Int64(uid)))
        }
        if let session {
            clauses.append("session_identifier = ?")
            arguments.append(.text(session))
        }
        if liveOnly { clauses.append("state IN ('waiting', 'running', 'suspended', 'retrying')") }
        let filter = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        let rows = try Self.run { try database.query("\(TransferRow.select) \(filter) \(TransferRow.order)", arguments) }
        var transfers: [Transfer] = []
        for row in rows { transfers.append(try TransferRow.decode(row)) }
        return transfers
    }

    /// How many transfers stand in each state (`TransferState.names`), 0 for states none is in.
    public func countsByState() throws(TransferStoreError) -> [String: Int] {
        let rows = try Self.run { try database.query("SELECT state, COUNT(*) FROM transfers GROUP BY state") }
        var counts = Dictionary(uniqueKeysWithValues: TransferState.names.map { ($0, 0) })
        for row in rows {
            guard let state = row[0].text, counts[state] != nil, let count = row[1].int64 else { continue }
            counts[state] = Int(count)
        }
        return counts
    }

    // MARK: helpers

    private static func fetch(_ id: String, visibleTo uid: UInt32?, _ db: SQLiteConnection) throws -> Transfer {
        guard let row = try db.query("\(TransferRow.select) WHERE id = ?", [.text(id)]).first else {
            throw TransferStoreError.notFound(id: id)
        }
        let transfer = try TransferRow.decode(row)
        if let uid, uid != 0, uid != transfer.ownerUID { throw TransferStoreError.notPermitted(id: id, uid: uid) }
        return transfer
    }

    /// The unique index refuses the row as well; this check names the holder.
    private static func checkDestination(_ destination: String, except id: String, _ db: SQLiteConnection) throws {
        let holder = try db.query(
            "SELECT id FROM transfers WHERE destination = ? AND id <> ? AND state IN ('waiting', 'running', 'suspended', 'retrying')",
            [.text(destination), .text(id)])
        if let existing = holder.first?[0].text {
            throw TransferStoreError.destinationInUse(destination: destination, existingID: existing)
        }
    }

    /// Runs `body`, turning sqlite's errors into the store's and passing any other through
    /// (an `update` body's own errors reach its caller unchanged).
    private static func mapSQLite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw storeError(error)
        }
    }

    /// Runs `body`, turning sqlite's errors into `.database` and keeping the store's own.
    private static func run<T>(_ body: () throws -> T) throws(TransferStoreError) -> T {
        do {
            return try body()
        } catch let error as TransferStoreError {
            throw error
        } catch let error as SQLiteError {
            throw storeError(error)
        } catch {
            throw .invalid("\(error)")
        }
    }

    private static func storeError(_ error: SQLiteError) -> TransferStoreError {
        if error.isConstraintViolation, error.message.contains("transfers.id") {
            return .invalid("a transfer with this id already exists")
        }
        return .database(error)
    }
}
