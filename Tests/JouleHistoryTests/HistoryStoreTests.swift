import Foundation
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleTransferQueue
@testable import JouleHistory
import JouleTesting
import Testing

@Suite struct HistoryStoreTests {
    typealias Scratch = TransferScratch

    @Test func theHistorySharesTheQueuesFileWithoutTouchingItsTables() throws {
        let scratch = try Scratch()
        let queue = try TransferStore(path: scratch.database)
        let download = TransferScratch.download("/srv/a.iso")
        try queue.add(download)
        let history = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        try history.append([HistoryRows.sample(1_000)])
        // Each part keeps its own version; reopening either in any order changes nothing.
        #expect(try queue.version() == TransferStore.schemaVersion)
        #expect(try HistoryStore.schema.storedVersion(history.database) == HistoryStore.schema.version)
        _ = try TransferStore(path: scratch.database)
        _ = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        #expect(try queue.get(download.id) == download)
        #expect(try history.read(since: 0, until: 2_000).samples.count == 1)
        let tables = try history.database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].text }
        #expect(tables == [
            "history_entries", "history_samples", "history_schema_version", "history_sleeps", "history_temperatures", "schema_version",
            "transfers",
        ])
    }

    @Test func aNewerHistoryIsLeftAloneAndTheQueueStillOpens() throws {
        let scratch = try Scratch()
        let database = try SQLiteDatabase(path: scratch.database)
        try database.execute("CREATE TABLE history_schema_version (version INTEGER NOT NULL)")
        try database.execute("INSERT INTO history_schema_version (version) VALUES (9)")
        #expect(throws: HistoryStoreError.newerSchema(path: scratch.database, found: 9, supported: HistoryStore.schema.version)) {
            _ = try HistoryStore(database: database)
        }
        #expect(throws: HistoryStoreError.newerSchema(path: scratch.database, found: 9, supported: HistoryStore.schema.version)) {
            _ = try HistoryStore(readingOnly: scratch.database)
        }
        _ = try TransferStore(database: database)
        #expect(try database.query("SELECT count(*) FROM sqlite_master WHERE name = 'history_samples'").first?[0].int64 == 0)
    }

    /// Found by the history fuzz target (10-minute run): a damaged row's negative byte count was
    /// read back as it was, and its JSON then refused by the contract's own decoder. The read now
    /// fails, naming the table, the column and the value.
    @Test func aNegativeByteCountIsADamagedRow() throws {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        // The table's CHECK refuses it, as a hand-edited or damaged file would not.
        _ = try store.database.execute("PRAGMA ignore_check_constraints = ON")
        _ = try store.database.execute(
            "INSERT INTO history_entries (time, kind, id, subtype, subject, bytes) VALUES (1000, 'transfer', 't', 'completed', 'GET x', -20)")
        #expect {
            _ = try store.read(since: 0, until: 2_000)
        } throws: { error in
            "\(error)".contains("history_entries: bytes = ") && "\(error)".contains("-20")
        }
    }

    @Test func unknownValuesAreNullNeverZero() throws {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        let unknown = HistoryRows.sample(1_000, percentage: nil, state: nil, power: nil, celsius: [nil], line: nil)
        try store.append([unknown])
        let row = try #require(try store.database.query(
            "SELECT percentage, charge_state, energy_rate_w, power_w, power_source, line_online, low_power_reason FROM history_samples").first)
        #expect(row.values.allSatisfy { $0.isNull })
        #expect(try store.database.query("SELECT celsius FROM history_temperatures").first?[0].isNull == true)
        #expect(try store.read(since: 0, until: 2_000).samples == [unknown])
    }

    @Test func rowsAndMarkersReadBackInOrderWithTheirSensorsInOrder() throws {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        var twelveZones = HistoryRows.sample(1_060, trigger: .lowPowerMode, lowPowerMode: true, source: .manual, reason: "manual-on")
        twelveZones.temperatures = (0..<12).map { HistoryTemperature(sensor: "thermal_zone\($0)", label: nil, celsius: Double($0)) }
        let first = HistoryRows.sample(1_000, trigger: .start, thermal: .serious, line: true)
        let outside = HistoryRows.sample(5_000)
        let entries = [HistoryRows.transfer(1_030, owner: 1000), HistoryRows.transfer(9_000, owner: 1000)]
        try store.append([twelveZones, first, outside], entries: entries)
        let read = try store.read(since: 1_000, until: 2_000)
        #expect(read.samples == [first, twelveZones])
        #expect(read.samples[1].temperatures.map(\.sensor).last == "thermal_zone11")
        #expect(read.entries == [entries[0]])
    }

    @Test func anotherUserSeesNoneOfYourTransfers() throws {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        let mine = HistoryRows.transfer(1_000, owner: 1000), theirs = HistoryRows.transfer(1_001, owner: 1001)
        try store.append([], entries: [mine, theirs])
        #expect(try store.read(since: 0, until: 2_000, visibleTo: 1000).entries == [mine])
        #expect(try store.read(since: 0, until: 2_000, visibleTo: 1001).entries == [theirs])
        #expect(try store.read(since: 0, until: 2_000, visibleTo: 0).entries == [mine, theirs])
        #expect(try store.read(since: 0, until: 2_000).entries == [mine, theirs])
    }

    @Test func aClientOpensTheFileReadOnly() throws {
        let scratch = try Scratch()
        #expect(throws: HistoryStoreError.noFile(path: scratch.database)) { _ = try HistoryStore(readingOnly: scratch.database) }
        _ = try TransferStore(path: scratch.database)
        #expect(throws: HistoryStoreError.noHistory(path: scratch.database)) { _ = try HistoryStore(readingOnly: scratch.database) }
        try HistoryStore(database: SQLiteDatabase(path: scratch.database)).append([HistoryRows.sample(1_000)])
        let reader = try HistoryStore(readingOnly: scratch.database)
        #expect(try reader.read(since: 0, until: 2_000).samples.count == 1)
        let refusal = #expect(throws: HistoryStoreError.self) { try reader.append([HistoryRows.sample(1_100)]) }
        #expect(refusal?.description.contains("SQLITE_READONLY") == true, "\(String(describing: refusal))")
    }

    @Test func oldRowsBecomeHourlyRowsAndExpireAfterAYear() throws {
        let scratch = try Scratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        let day = 86_400.0, now = 1_800_000_000.0
        let retention = HistoryRetention()
        let hour = retention.aggregateBefore(now: now) - 7_200  // two whole hours before the 30-day cutoff
        var old: [HistorySample] = []
        for minute in 0..<120 {
            old.append(HistoryRows.sample(
                hour + Double(minute) * 60, percentage: 90 - Double(minute) / 4, power: minute < 60 ? 10 : 20,
                lowPowerMode: minute >= 90, thermal: minute == 30 ? .serious : .nominal))
        }
        let recent = [HistoryRows.sample(now - day), HistoryRows.sample(now - 60)]
        let ancient = [HistoryRows.sample(now - 400 * day), HistoryRows.sample(now - 366 * day)]
        let entries = [HistoryRows.transfer(now - 400 * day, owner: 1000), HistoryRows.transfer(now - 40 * day, owner: 1000)]
        try store.append(old + recent + ancient, entries: entries)

        let outcome = try store.applyRetention(retention, now: now)
        #expect(outcome == HistoryStore.RetentionOutcome(aggregated: 122, hourly: 4, deleted: 3))
        let rows = try store.read(since: 0, until: now).samples
        let hourly = rows.filter { $0.trigger == .hourly }
        // The year-old rows were aggregated, then expired with their marker.
        #expect(hourly.map(\.timestamp) == [hour, hour + 3_600])
        let first = try #require(hourly.first { $0.timestamp == hour })
        #expect(first.span == 3_600)
        #expect(first.powerW == 10)
        #expect(first.thermalState == .serious)
        #expect(first.lowPowerMode == false)
        #expect(abs((first.percentage ?? 0) - (90 - 59.0 / 8)) < 1e-9)
        let second = try #require(hourly.first { $0.timestamp == hour + 3_600 })
        #expect(second.powerW == 20)
        #expect(second.lowPowerMode)  // 30 of 60 minutes: half counts
        #expect(rows.filter { $0.trigger != .hourly } == recent)
        #expect(try store.database.query("SELECT count(*) FROM history_temperatures").first?[0].int64 == Int64(2 * (hourly.count + recent.count)))
        #expect(try store.read(since: 0, until: now).entries == [entries[1]])
        // Applying it again finds nothing to do.
        #expect(try store.applyRetention(retention, now: now) == HistoryStore.RetentionOutcome(aggregated: 0, hourly: 0, deleted: 0))
    }

    /// The fixture is an older joule's transfers.db: the history's first schema, as the script
    /// builds it from the first migration (the sleeps of issue 36 came later).
    @Test func theFixtureHasJoulesSchema() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("hw-fixtures/history/laptop-day/transfers.db").path
        let scratch = try Scratch()
        let fresh = try SQLiteDatabase(path: scratch.database)
        try SQLiteSchema(versionTable: HistoryStore.schema.versionTable, migrations: [HistoryStore.schema.migrations[0]]).migrate(fresh)
        let schema = "SELECT type, name, sql FROM sqlite_master WHERE name LIKE 'history%' ORDER BY name"
        let expected = try fresh.query(schema)
        let found = try HistoryStore(readingOnly: fixture).database.query(schema)
        #expect(found == expected, "regenerate with scripts/make-history-fixture.py")
    }
}
