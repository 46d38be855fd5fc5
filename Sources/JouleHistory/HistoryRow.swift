import JouleHardware
import JouleEnergy

/// The history tables' columns: the SQL the store runs, and rows to values and back.
enum HistoryRow {
    static let insertSample = """
        INSERT INTO history_samples (time, trigger, span, percentage, charge_state, energy_rate_w, power_w,
            power_source, line_online, low_power_mode, low_power_source, low_power_reason, thermal_state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
        """
    static let insertTemperature = """
        INSERT INTO history_temperatures (sample_id, position, sensor, label, celsius) VALUES (?, ?, ?, ?, ?)
        """
    static let insertEntry = """
        INSERT INTO history_entries (time, kind, id, subtype, subject, detail, pid, bytes, owner_uid)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertSleep = """
        INSERT INTO history_sleeps (start_time, end_time, energy_before_wh, energy_after_wh, drain_percent_per_hour, drain_w,
            wake_reason, mode)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let selectSleeps = """
        SELECT start_time, end_time, energy_before_wh, energy_after_wh, drain_percent_per_hour, drain_w, wake_reason, mode
        FROM history_sleeps
        """
    static let selectSamples = """
        SELECT id, time, trigger, span, percentage, charge_state, energy_rate_w, power_w, power_source, line_online,
            low_power_mode, low_power_source, low_power_reason, thermal_state FROM history_samples
        """
    static let selectTemperatures = """
        SELECT sample_id, sensor, label, celsius FROM history_temperatures
        """
    static let selectEntries = """
        SELECT time, kind, id, subtype, subject, detail, pid, bytes, owner_uid FROM history_entries
        """

    static func values(_ sample: HistorySample) -> [SQLiteValue] {
        [
            .real(sample.timestamp), .text(sample.trigger.rawValue), .from(sample.span), .from(sample.percentage),
            .from(sample.chargeState?.rawValue), .from(sample.energyRateW), .from(sample.powerW), .from(sample.powerSource),
            sample.lineOnline.map(SQLiteValue.from) ?? .null, .from(sample.lowPowerMode),
            .text(sample.lowPowerModeSource.rawValue), .from(sample.lowPowerModeReason),
            .text(sample.thermalState.description),
        ]
    }

    static func values(_ reading: HistoryTemperature, sample id: Int64, position: Int) -> [SQLiteValue] {
        [.integer(id), .from(position), .text(reading.sensor), .from(reading.label), .from(reading.celsius)]
    }

    static func values(_ entry: HistoryEntry) -> [SQLiteValue] {
        [
            .real(entry.timestamp), .text(entry.kind.rawValue), .text(entry.id), .text(entry.subtype), .text(entry.subject),
            .from(entry.detail), .from(entry.pid), .from(entry.bytes), .from(entry.ownerUID.map(Int64.init)),
        ]
    }

    static func values(_ sleep: SleepRecord) -> [SQLiteValue] {
        [
            .real(sleep.start), .real(sleep.end), .from(sleep.energyBeforeWh), .from(sleep.energyAfterWh),
            .from(sleep.drainPercentPerHour), .from(sleep.drainW), .from(sleep.wakeReason), .from(sleep.mode),
        ]
    }

    /// A row of `selectSleeps`. Its times must be finite and in order: the JSON contract has no
    /// null time, so a damaged row would make a reply its own decoder refuses.
    static func sleep(_ row: SQLiteRow) throws(HistoryRowError) -> SleepRecord {
        guard let start = row[0].double, start.isFinite else { throw HistoryRowError(column: "start_time", value: row[0]) }
        guard let end = row[1].double, end.isFinite, end >= start else { throw HistoryRowError(column: "end_time", value: row[1]) }
        return SleepRecord(
            start: start, end: end, energyBeforeWh: row[2].double, energyAfterWh: row[3].double, drainPercentPerHour: row[4].double,
            drainW: row[5].double, wakeReason: row[6].text, mode: row[7].text)
    }

    /// A row of `selectSamples` (its id first) with its readings.
    static func sample(_ row: SQLiteRow, temperatures: [HistoryTemperature]) throws(HistoryRowError) -> HistorySample {
        func word<T>(_ column: Int, _ parse: (String) -> T?) throws(HistoryRowError) -> T {
            guard let text = row[column].text, let value = parse(text) else {
                throw HistoryRowError(column: row.columns[column], value: row[column])
            }
            return value
        }
        func optionalWord<T>(_ column: Int, _ parse: (String) -> T?) throws(HistoryRowError) -> T? {
            row[column].isNull ? nil : try word(column, parse)
        }
        guard let time = row[1].double else { throw HistoryRowError(column: "time", value: row[1]) }
        return HistorySample(
            timestamp: time, trigger: try word(2, HistoryTrigger.init(rawValue:)), span: row[3].double,
            percentage: row[4].double, chargeState: try optionalWord(5, PowerSupplyState.init(rawValue:)),
            energyRateW: row[6].double, powerW: row[7].double, powerSource: row[8].text,
            lineOnline: row[9].int64.map { $0 != 0 }, lowPowerMode: (row[10].int64 ?? 0) != 0,
            lowPowerModeSource: try word(11, LowPowerModeSource.init(rawValue:)), lowPowerModeReason: row[12].text,
            thermalState: try word(13, ThermalState.init(name:)), temperatures: temperatures)
    }

    static func entry(_ row: SQLiteRow) throws(HistoryRowError) -> HistoryEntry {
        guard let time = row[0].double else { throw HistoryRowError(column: "time", value: row[0]) }
        guard let kind = row[1].text.flatMap(HistoryEntry.Kind.init(rawValue:)) else {
            throw HistoryRowError(column: "kind", value: row[1])
        }
        // A byte count is never negative: the JSON contract refuses one, so the row is damaged.
        if let bytes = row[7].int64, bytes < 0 { throw HistoryRowError(column: "bytes", value: row[7]) }
        return HistoryEntry(
            timestamp: time, kind: kind, id: row[2].text ?? "", subtype: row[3].text ?? "", subject: row[4].text ?? "",
            detail: row[5].text, pid: row[6].int64.map { Int($0) }, bytes: row[7].int64,
            ownerUID: row[8].int64.flatMap { UInt32(exactly: $0) })
    }
}

/// A column whose value does not decode.
struct HistoryRowError: Error {
    var column: String
    var value: SQLiteValue

    var description: String { "\(column) = \(value)" }
}
