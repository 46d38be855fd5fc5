import JouleHardware
import JouleEnergy

/// The daemon's history: rows of the machine's power and thermal condition and the transfer
/// markers, in a SQLite file of its own (`history.db` in the state directory), versioned by
/// `history_schema_version`. Older joules kept these tables in the transfer queue's
/// `transfers.db`; the daemon moves them out when it opens the store
/// (`init(stateDirectory:moved:)`), and a reader falls back to that file while `history.db`
/// holds no history (`HistoryReader`).
///
/// The daemon opens it read-write and appends in batches; `joule history` opens the file read
/// only (`init(readingOnly:)`), so a client never changes the daemon's file.
package final class HistoryStore: Sendable {
    package static let schema = SQLiteSchema(versionTable: "history_schema_version", migrations: [
        """
        CREATE TABLE history_samples (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            trigger TEXT NOT NULL,
            span REAL CHECK (span IS NULL OR span > 0),
            percentage REAL CHECK (percentage IS NULL OR percentage BETWEEN 0 AND 100),
            charge_state TEXT
                CHECK (charge_state IS NULL OR charge_state IN ('charging', 'discharging', 'full', 'not-charging', 'empty', 'unknown')),
            energy_rate_w REAL,
            power_w REAL,
            power_source TEXT,
            line_online INTEGER CHECK (line_online IS NULL OR line_online IN (0, 1)),
            low_power_mode INTEGER NOT NULL CHECK (low_power_mode IN (0, 1)),
            low_power_source TEXT NOT NULL CHECK (low_power_source IN ('auto', 'manual', 'power-profiles-daemon')),
            low_power_reason TEXT,
            thermal_state TEXT NOT NULL CHECK (thermal_state IN ('nominal', 'fair', 'serious', 'critical'))
        );
        CREATE INDEX history_samples_time ON history_samples (time);
        -- Each sensor's reading in a row, in the order the row listed them; NULL when it failed.
        CREATE TABLE history_temperatures (
            sample_id INTEGER NOT NULL,
            position INTEGER NOT NULL,
            sensor TEXT NOT NULL,
            label TEXT,
            celsius REAL,
            PRIMARY KEY (sample_id, position)
        ) WITHOUT ROWID;
        -- Markers stored when they happen (finished transfers); reports are read from their directory.
        CREATE TABLE history_entries (
            time REAL NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('report', 'transfer')),
            id TEXT NOT NULL,
            subtype TEXT NOT NULL,
            subject TEXT NOT NULL,
            detail TEXT,
            pid INTEGER,
            bytes INTEGER CHECK (bytes IS NULL OR bytes >= 0),
            owner_uid INTEGER CHECK (owner_uid IS NULL OR owner_uid >= 0)
        );
        CREATE INDEX history_entries_time ON history_entries (time);
        """,
        """
        -- Each sleep the daemon accounted for at resume (issue 36); NULL where unknown, never 0.
        -- Machine-wide: every reader of the history sees them. Times as history_samples.time.
        CREATE TABLE history_sleeps (
            start_time REAL NOT NULL,
            end_time REAL NOT NULL CHECK (end_time >= start_time),
            energy_before_wh REAL,
            energy_after_wh REAL,
            drain_percent_per_hour REAL,
            drain_w REAL,
            wake_reason TEXT,
            mode TEXT
        );
        CREATE INDEX history_sleeps_end ON history_sleeps (end_time);
        """,
    ])

    /// The file, in the state directory.
    package static let fileName = "history.db"

    /// The file an older joule kept the history in, beside the transfer queue.
    package static let legacyFileName = "transfers.db"

    package let database: SQLiteDatabase

    /// Opens `database` for writing, bringing the history's tables up to date.
    package init(database: SQLiteDatabase) throws(HistoryStoreError) {
        self.database = database
        do {
            try Self.schema.migrate(database)
        } catch {
            switch error {
            case .newer(let found, let supported):
                throw .newerSchema(path: database.path, found: found, supported: supported)
            case .database(let error): throw .database(error)
            }
        }
    }

    /// The history in `directory`'s `history.db`, created when missing, for writing (the
    /// daemon). A history an older joule left in the directory's `transfers.db` is moved in
    /// first (`moveLegacy`), and `moved` hears what was moved.
    package convenience init(stateDirectory: StateDirectory, moved: (LegacyMove) -> Void = { _ in }) throws(HistoryStoreError) {
        let database: SQLiteDatabase
        do throws(SQLiteError) {
            database = try SQLiteDatabase(path: stateDirectory.file(Self.fileName))
        } catch {
            throw .database(error)
        }
        if let move = try Self.moveLegacy(into: database, from: stateDirectory.file(Self.legacyFileName)) { moved(move) }
        try self.init(database: database)
    }

    /// A history moved out of an older joule's `transfers.db`.
    package struct LegacyMove: Sendable, Hashable, CustomStringConvertible {
        package var from: String
        package var to: String
        /// Rows copied, by table; empty when `to` held the history already (a crash came
        /// between the copy and the drop), so that only the drop was left to do.
        package var copied: [String: Int]
        /// Why the history's tables could not be dropped from `from`, or `from` not even
        /// looked at, while `to` holds a history (the next start tries again); nil when they
        /// were dropped.
        package var dropFailure: SQLiteError?

        package var description: String {
            func count(_ table: String, _ noun: String) -> String {
                let count = copied[table] ?? 0
                return "\(count) \(noun)\(count == 1 ? "" : "s")"
            }
            // Sleeps are named only when there were some: an older joule's file has none.
            let sleeps = (copied["history_sleeps"] ?? 0) > 0 ? ", \(count("history_sleeps", "sleep"))" : ""
            let moved = "history: moved \(count("history_samples", "row")) (\(count("history_temperatures", "temperature reading")))\(sleeps)"
                + " and \(count("history_entries", "marker")) from \(from) to \(to)"
            switch (copied.isEmpty, dropFailure) {
            case (false, nil): return moved
            case (false, let failure?):
                return "\(moved), but cannot drop them from \(from) (the next start tries again): \(failure)"
            case (true, nil): return "history: dropped the history an older joule left in \(from) (\(to) holds it already)"
            case (true, let failure?):
                return "history: cannot drop what an older joule left in \(from) (\(to) holds the history; the next start tries again): \(failure)"
            }
        }
    }

    /// Moves the history out of `legacy` (an older joule's `transfers.db`) into `database`
    /// (`history.db`), crash-safe, in two transactions. While `database` has no history
    /// schema (a new file, or one left empty by a crash) and `legacy` has one, the first
    /// creates the schema in `database` and copies every history table into it; it is durable
    /// once it commits (WAL, synchronous=FULL). Only then the second drops the history's
    /// tables (with their indexes) and version table from `legacy`. A crash between the two
    /// leaves the history in both: the next call finds `database`'s and only drops
    /// (`database` wins). They cannot be one transaction: over two WAL files, a transaction is
    /// not atomic. A schema newer than this joule's in either file is refused, naming the
    /// file, and nothing is touched. Returns nil when there was nothing to move.
    ///
    /// Until `database` holds a history, any failure to read `legacy` is thrown: a new
    /// `history.db` must not be started beside a history that was not moved (the next start
    /// would drop that one). Once it holds one, `legacy` only has tables to drop, and a
    /// failure is the move's `dropFailure`.
    static func moveLegacy(into database: SQLiteDatabase, from legacy: String) throws(HistoryStoreError) -> LegacyMove? {
        guard FileSystem.kind(of: legacy) != nil else { return nil }
        let supported = schema.version, path = database.path
        let found: Int?
        do throws(SQLiteError) { found = try schema.storedVersion(database) } catch { throw .database(error) }
        if let found, found > supported { throw .newerSchema(path: path, found: found, supported: supported) }
        let holdsHistory = (found ?? 0) > 0
        var attached = false
        defer { if attached { _ = try? database.execute("DETACH DATABASE legacy") } }
        let legacyVersion: Int?
        do throws(SQLiteError) {
            try database.execute("ATTACH DATABASE ? AS legacy", [.text(legacy)])
            attached = true
            legacyVersion = try schema.storedVersion(database, schema: "legacy")
        } catch {
            guard holdsHistory else { throw .move(from: legacy, to: path, error) }
            return LegacyMove(from: legacy, to: path, copied: [:], dropFailure: error)
        }
        guard let legacyVersion, legacyVersion > 0 else { return nil }
        guard legacyVersion <= supported else { throw .newerSchema(path: legacy, found: legacyVersion, supported: supported) }
        var copied: [String: Int] = [:]
        if !holdsHistory {
            do {
                copied = try database.transaction { db in
                    // The schema as the legacy file has it, its rows, then up to this joule's.
                    let old = SQLiteSchema(versionTable: schema.versionTable, migrations: Array(schema.migrations.prefix(legacyVersion)))
                    try old.migrate(inside: db)
                    var copied: [String: Int] = [:]
                    for table in try historyTables(db, schema: "main") {
                        let columns = try db.query("SELECT name FROM pragma_table_info(?, 'main')", [.text(table)])
                            .compactMap { $0[0].text }.map { "\"\($0)\"" }.joined(separator: ", ")
                        copied[table] = try db.execute(
                            "INSERT INTO main.\"\(table)\" (\(columns)) SELECT \(columns) FROM legacy.\"\(table)\"")
                    }
                    try schema.migrate(inside: db)
                    return copied
                }
            } catch {
                throw .move(from: legacy, to: path, sqliteError(error, path: path))
            }
        }
        var dropFailure: SQLiteError?
        do {
            try database.transaction { db in
                for table in try historyTables(db, schema: "legacy") + [schema.versionTable] {
                    try db.execute("DROP TABLE legacy.\"\(table)\"")
                }
            }
        } catch {
            dropFailure = sqliteError(error, path: legacy)
        }
        return LegacyMove(from: legacy, to: path, copied: copied, dropFailure: dropFailure)
    }

    /// The history's tables in `schema` (`main` or `legacy`), without its version table.
    private static func historyTables(_ db: SQLiteConnection, schema name: String) throws -> [String] {
        try db.query(
            "SELECT name FROM \(name).sqlite_master WHERE type = 'table' AND name LIKE 'history\\_%' ESCAPE '\\' AND name <> ? ORDER BY name",
            [.text(schema.versionTable)]
        ).compactMap { $0[0].text }
    }

    private static func sqliteError(_ error: any Error, path: String) -> SQLiteError {
        if let error = error as? SQLiteError { return error }
        if case SQLiteSchema.Failure.database(let error)? = error as? SQLiteSchema.Failure { return error }
        return SQLiteError(operation: "move", path: path, sql: nil, code: 1, message: "\(error)")
    }

    /// Opens an existing file for reading only. A missing file is `noFile`; a file without the history's tables is
    /// `noHistory`; one from a newer joule is `newerSchema`.
    package init(readingOnly path: String) throws(HistoryStoreError) {
        guard FileSystem.kind(of: path) != nil else {
            // EACCES on the directory hides the file as well as ENOENT does: say which it is.
            if let failure = FileSystem.statFailure(path), failure != .noEntry { throw .unreadable(path: path, errno: failure) }
            throw .noFile(path: path)
        }
        // What SQLite would word as its own CANTOPEN or NOTADB, said as the file system and the
        // format say it.
        let head: [UInt8]
        do { head = try FileSystem.readBytes(path, limit: 16) } catch {
            throw .unreadable(path: path, errno: error.errno ?? .ioError)
        }
        guard head.isEmpty || Array(head.prefix(16)) == Array("SQLite format 3\u{0}".utf8) else {
            throw .corrupt(path: path, detail: "not an SQLite database")
        }
        let version: Int?
        do throws(SQLiteError) {
            database = try SQLiteDatabase(readingOnly: path)
            version = try Self.schema.storedVersion(database)
        } catch {
            throw .database(error)
        }
        guard let version, version > 0 else { throw .noHistory(path: path) }
        guard version <= Self.schema.version else {
            throw .newerSchema(path: path, found: version, supported: Self.schema.version)
        }
    }

    // MARK: writing

    /// Appends rows, markers and sleeps in one transaction (the daemon's batch).
    package func append(_ samples: [HistorySample], entries: [HistoryEntry] = [], sleeps: [SleepRecord] = []) throws(HistoryStoreError) {
        try run {
            try database.transaction { db in
                try Self.insert(samples, db)
                for entry in entries { try db.execute(HistoryRow.insertEntry, HistoryRow.values(entry)) }
                for sleep in sleeps { try db.execute(HistoryRow.insertSleep, HistoryRow.values(sleep)) }
            }
        }
    }

    /// Appends one sleep.
    package func appendSleep(_ record: SleepRecord) throws(HistoryStoreError) {
        try append([], sleeps: [record])
    }

    private static func insert(_ samples: [HistorySample], _ db: SQLiteConnection) throws {
        for sample in samples {
            guard let id = try db.query(HistoryRow.insertSample, HistoryRow.values(sample)).first?[0].int64 else {
                throw SQLiteError(operation: "INSERT", path: "", sql: HistoryRow.insertSample, code: 1, message: "no row id returned")
            }
            for (position, reading) in sample.temperatures.enumerated() {
                try db.execute(HistoryRow.insertTemperature, HistoryRow.values(reading, sample: id, position: position))
            }
        }
    }

    /// What one application of the retention did.
    package struct RetentionOutcome: Sendable, Hashable {
        /// Readings replaced by hourly rows, and the hourly rows written.
        package var aggregated: Int
        package var hourly: Int
        /// Rows and markers older than the retention deleted.
        package var deleted: Int
    }

    /// Replaces readings older than `retention.fullResolution` with one row per bucket and
    /// deletes rows and markers older than `retention.keep`, in one transaction.
    @discardableResult
    package func applyRetention(_ retention: HistoryRetention, now: Double) throws(HistoryStoreError) -> RetentionOutcome {
        let cutoff = retention.aggregateBefore(now: now), oldest = retention.deleteBefore(now: now)
        let path = database.path
        return try run {
            try database.transaction { db in
                let old = try Self.samples(db, path: path, where: "trigger <> 'hourly' AND time < ?", [.real(cutoff)])
                let hourly = retention.aggregate(old.map(\.sample))
                _ = try Self.delete(db, where: "trigger <> 'hourly' AND time < ?", [.real(cutoff)])
                try Self.insert(hourly, db)
                var deleted = try Self.delete(db, where: "time < ?", [.real(oldest)])
                deleted += try db.execute("DELETE FROM history_entries WHERE time < ?", [.real(oldest)])
                // Sleeps are a few rows a day: kept whole as long as anything is, gone once ended before it.
                deleted += try db.execute("DELETE FROM history_sleeps WHERE end_time < ?", [.real(oldest)])
                return RetentionOutcome(aggregated: old.count, hourly: hourly.count, deleted: deleted)
            }
        }
    }

    /// Deletes the rows matching `filter` and their readings; returns how many rows.
    private static func delete(_ db: SQLiteConnection, where filter: String, _ arguments: [SQLiteValue]) throws -> Int {
        try db.execute(
            "DELETE FROM history_temperatures WHERE sample_id IN (SELECT id FROM history_samples WHERE \(filter))", arguments)
        return try db.execute("DELETE FROM history_samples WHERE \(filter)", arguments)
    }

    // MARK: reading

    /// The rows and stored markers from `since` to `until` (inclusive), oldest first. Transfer
    /// markers are `uid`'s own only, unless `uid` is root (0) or nil (the daemon).
    package func read(
        since: Double, until: Double, visibleTo uid: UInt32? = nil
    ) throws(HistoryStoreError) -> (samples: [HistorySample], entries: [HistoryEntry]) {
        let path = database.path
        return try run {
            try database.withConnection { db in
                let samples = try Self.samples(db, path: path, where: "time BETWEEN ? AND ?", [.real(since), .real(until)])
                var filter = "time BETWEEN ? AND ?"
                var arguments: [SQLiteValue] = [.real(since), .real(until)]
                if let uid, uid != 0 {
                    filter += " AND (owner_uid IS NULL OR owner_uid = ?)"
                    arguments.append(.integer(Int64(uid)))
                }
                var entries: [HistoryEntry] = []
                for row in try db.query("\(HistoryRow.selectEntries) WHERE \(filter) ORDER BY time, id", arguments) {
                    do throws(HistoryRowError) { entries.append(try HistoryRow.entry(row)) } catch {
                        throw HistoryStoreError.corrupt(path: path, detail: "history_entries: \(error.description)")
                    }
                }
                return (samples.map(\.sample), entries)
            }
        }
    }

    /// The sleeps overlapping `since…until` (inclusive), oldest first. They are the machine's,
    /// not a user's: every reader sees them. A file of an older schema (opened read only before
    /// the daemon upgraded it) has none.
    package func readSleeps(since: Double, until: Double) throws(HistoryStoreError) -> [SleepRecord] {
        let path = database.path
        return try run {
            try database.withConnection { db in
                let table = try db.query(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'history_sleeps'", [])
                guard table.first?[0].int64 == 1 else { return [] }
                var sleeps: [SleepRecord] = []
                let rows = try db.query(
                    "\(HistoryRow.selectSleeps) WHERE end_time >= ? AND start_time <= ? ORDER BY start_time, end_time",
                    [.real(since), .real(until)])
                for row in rows {
                    do throws(HistoryRowError) { sleeps.append(try HistoryRow.sleep(row)) } catch {
                        throw HistoryStoreError.corrupt(path: path, detail: "history_sleeps: \(error.description)")
                    }
                }
                return sleeps
            }
        }
    }

    /// The oldest row's time, nil when there is none.
    package func firstRowTime() throws(HistoryStoreError) -> Double? {
        try run {
            try database.withConnection { db in try db.query("SELECT MIN(time) FROM history_samples", []).first?[0].double }
        }
    }

    /// The rows matching `filter`, oldest first, each with its id and readings.
    private static func samples(
        _ db: SQLiteConnection, path: String, where filter: String, _ arguments: [SQLiteValue]
    ) throws -> [(id: Int64, sample: HistorySample)] {
        var readings: [Int64: [HistoryTemperature]] = [:]
        let temperatures = "\(HistoryRow.selectTemperatures) WHERE sample_id IN (SELECT id FROM history_samples WHERE \(filter)) ORDER BY sample_id, position"
        for row in try db.query(temperatures, arguments) {
            guard let id = row[0].int64, let sensor = row[1].text else { continue }
            readings[id, default: []].append(HistoryTemperature(sensor: sensor, label: row[2].text, celsius: row[3].double))
        }
        var samples: [(Int64, HistorySample)] = []
        for row in try db.query("\(HistoryRow.selectSamples) WHERE \(filter) ORDER BY time, id", arguments) {
            guard let id = row[0].int64 else { continue }
            do throws(HistoryRowError) {
                samples.append((id, try HistoryRow.sample(row, temperatures: readings[id] ?? [])))
            } catch {
                throw HistoryStoreError.corrupt(path: path, detail: "history_samples row \(id): \(error.description)")
            }
        }
        return samples
    }

    /// Runs `body`, turning sqlite's errors into `.database` and keeping the store's own.
    private func run<T>(_ body: () throws -> T) throws(HistoryStoreError) -> T {
        do {
            return try body()
        } catch let error as HistoryStoreError {
            throw error
        } catch let error as SQLiteError {
            throw .database(error)
        } catch {
            throw .corrupt(path: database.path, detail: "\(error)")
        }
    }
}
