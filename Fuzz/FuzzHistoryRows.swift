import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleHistory

/// Rows of the history store as sqlite hands them back (any storage class in any column, as a
/// damaged or hand-edited file gives), decoded as `HistoryStore.read` and `readSleeps` decode
/// them, kept when in range as their `WHERE` keeps them (a sleep when it overlaps the range),
/// then everything `joule history` and `GetHistory` do with them: the JSON (which must read
/// back), the summary and the chart.
func fuzzHistoryRows(_ bytes: [UInt8]) {
    var input = FuzzBytes(bytes)
    let since = 1_700_000_000.0, until = since + 86_400
    let sampleColumns = ["id", "time", "trigger", "span", "percentage", "charge_state", "energy_rate_w", "power_w",
                         "power_source", "line_online", "low_power_mode", "low_power_source", "low_power_reason", "thermal_state"]
    let entryColumns = ["time", "kind", "id", "subtype", "subject", "detail", "pid", "bytes", "owner_uid"]
    let sleepColumns = ["start_time", "end_time", "energy_before_wh", "energy_after_wh", "drain_percent_per_hour", "drain_w",
                        "wake_reason", "mode"]
    let words = HistoryTrigger.allCases.map(\.rawValue) + PowerSupplyState.allCases.map(\.rawValue)
        + LowPowerModeSource.allCases.map(\.rawValue) + ThermalState.allCases.map(\.description)
        + HistoryEntry.Kind.allCases.map(\.rawValue) + ["AC", "battery", "coretemp", "s2idle", "deep"]
    var samples: [HistorySample] = []
    var entries: [HistoryEntry] = []
    var sleeps: [SleepRecord] = []
    while !input.isAtEnd {
        let kind = input.byte()
        let isSample = kind & 1 == 0, isSleep = !isSample && kind & 2 != 0
        let columns = isSample ? sampleColumns : isSleep ? sleepColumns : entryColumns
        var values = columns.map { _ in sqliteValue(&input, words: words) }
        // Most rows are in range: the time column is then a real between since and until.
        if input.byte() < 200 { values[isSample ? 1 : 0] = .real(since + Double(input.byte()) * 300) }
        // Most sleeps end after they start.
        if isSleep, input.byte() < 200, let start = values[0].double { values[1] = .real(start + Double(input.byte()) * 60) }
        let row = SQLiteRow(columns: columns, values: values)
        if isSample {
            let temperatures = (0..<Int(input.byte() % 4)).map { _ in
                HistoryTemperature(sensor: input.word(["cpu", "gpu", "acpitz"]), label: input.byte() & 1 == 0 ? nil : input.string(),
                                   celsius: sqliteValue(&input, words: []).double)
            }
            guard let sample = try? HistoryRow.sample(row, temperatures: temperatures), (since...until).contains(sample.timestamp) else { continue }
            samples.append(sample)
        } else if isSleep {
            guard let sleep = try? HistoryRow.sleep(row), sleep.end >= since, sleep.start <= until else { continue }
            sleeps.append(sleep)
        } else {
            guard let entry = try? HistoryRow.entry(row), (since...until).contains(entry.timestamp) else { continue }
            entries.append(entry)
        }
    }
    let timeline = HistoryTimeline(
        since: since, until: until, source: .file, database: "/fuzz/history.db", samples: samples, entries: entries, sleeps: sleeps)
    let json = timeline.json.serialized
    do throws(JSONDecodingError) {
        let back = try HistoryTimeline(json: json)
        check(back.samples.count == samples.count && back.entries.count == entries.count && back.sleeps.count == sleeps.count, "rows lost in JSON")
    } catch {
        check(false, "the JSON of rows read back does not decode: \(error)")
    }
    let utc = TimeZone(identifier: "UTC")!
    _ = HistorySummary(timeline).text(timeZone: utc)
    let svg = HistoryChart(timeline: timeline, options: .init(timeZone: utc)).svg()
    // Labels are the input's own text; coordinates are what must stay finite.
    for bad in ["=\"nan", "=\"-nan", "=\"inf", "=\"-inf", "L nan", "L inf", "L -inf", "M nan", "M inf", "M -inf"] {
        check(!svg.contains(bad), "non-finite coordinate in the chart: \(bad)")
    }
}

/// One column value in any of sqlite's storage classes; text mostly the words the store writes.
private func sqliteValue(_ input: inout FuzzBytes, words: [String]) -> SQLiteValue {
    switch input.byte() % 6 {
    case 0: .null
    case 1: .integer(input.int64())
    case 2: .integer(Int64(input.byte()) - 20)
    case 3: .real(input.double())
    case 4: .text(input.word(words))
    default: .blob((0..<Int(input.byte() % 8)).map { _ in input.byte() })
    }
}
