import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleHistory

/// Rows of the history store as sqlite hands them back (any storage class in any column, as a
/// damaged or hand-edited file gives), decoded as `HistoryStore.read` decodes them, kept when
/// in range as its `WHERE time BETWEEN` keeps them, then everything `joule history` and
/// `GetHistory` do with them: the JSON (which must read back), the summary and the chart.
func fuzzHistoryRows(_ bytes: [UInt8]) {
    var input = FuzzBytes(bytes)
    let since = 1_700_000_000.0, until = since + 86_400
    let sampleColumns = ["id", "time", "trigger", "span", "percentage", "charge_state", "energy_rate_w", "power_w",
                         "power_source", "line_online", "low_power_mode", "low_power_source", "low_power_reason", "thermal_state"]
    let entryColumns = ["time", "kind", "id", "subtype", "subject", "detail", "pid", "bytes", "owner_uid"]
    let words = HistoryTrigger.allCases.map(\.rawValue) + PowerSupplyState.allCases.map(\.rawValue)
        + LowPowerModeSource.allCases.map(\.rawValue) + ThermalState.allCases.map(\.description)
        + HistoryEntry.Kind.allCases.map(\.rawValue) + ["AC", "battery", "coretemp"]
    var samples: [HistorySample] = []
    var entries: [HistoryEntry] = []
    while !input.isAtEnd {
        let isSample = input.byte() & 1 == 0
        let columns = isSample ? sampleColumns : entryColumns
        var values = columns.map { _ in sqliteValue(&input, words: words) }
        // Most rows are in range: the time column is then a real between since and until.
        if input.byte() < 200 { values[isSample ? 1 : 0] = .real(since + Double(input.byte()) * 300) }
        let row = SQLiteRow(columns: columns, values: values)
        if isSample {
            let temperatures = (0..<Int(input.byte() % 4)).map { _ in
                HistoryTemperature(sensor: input.word(["cpu", "gpu", "acpitz"]), label: input.byte() & 1 == 0 ? nil : input.string(),
                                   celsius: sqliteValue(&input, words: []).double)
            }
            guard let sample = try? HistoryRow.sample(row, temperatures: temperatures), (since...until).contains(sample.timestamp) else { continue }
            samples.append(sample)
        } else {
            guard let entry = try? HistoryRow.entry(row), (since...until).contains(entry.timestamp) else { continue }
            entries.append(entry)
        }
    }
    let timeline = HistoryTimeline(since: since, until: until, source: .file, database: "/fuzz/history.db", samples: samples, entries: entries)
    let json = timeline.json.serialized
    do throws(JSONDecodingError) {
        let back = try HistoryTimeline(json: json)
        check(back.samples.count == samples.count && back.entries.count == entries.count, "rows lost in JSON")
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
