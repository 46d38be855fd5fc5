import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleTransferQueue
@testable import JouleHistory
import JouleTesting
import Testing

/// Issue 36's sleeps in the history: stored in `history_sleeps` (unknown is NULL), kept and
/// expired as the rows are, carried by the timeline to the JSON (`sleeps`), the summary and the
/// chart's "Sleep" band, and the chart's "Charge limit" band where the samples show the battery
/// held on AC.
@Suite struct HistorySleepTests {
    typealias Scratch = TransferScratch
    static let utc = TimeZone(identifier: "UTC")!

    /// A deep sleep overnight that drained slowly, and an s2idle hour that drained fast.
    static let night = SleepRecord(
        start: 1_000, end: 1_000 + 8 * 3_600, energyBeforeWh: 50, energyAfterWh: 49.2, drainPercentPerHour: 0.2, drainW: 0.1,
        wakeReason: "ACPI LID0 (wakeup_count +1)", mode: "deep")
    static let lunch = SleepRecord(
        start: 7_200, end: 10_800, energyBeforeWh: 40, energyAfterWh: 37.5, drainPercentPerHour: 4.25, drainW: 2.5,
        wakeReason: "ACPI PNP0C0D:00 (wakeup_count +1)", mode: "s2idle")
    /// Everything but the times unknown.
    static let unknown = SleepRecord(
        start: 50_000, end: 50_600, energyBeforeWh: nil, energyAfterWh: nil, drainPercentPerHour: nil, drainW: nil, wakeReason: nil, mode: nil)

    static func store() throws -> (Scratch, HistoryStore) {
        let scratch = try Scratch()
        return (scratch, try HistoryStore(database: SQLiteDatabase(path: scratch.database)))
    }

    // MARK: The store

    @Test func sleepsReadBackWithNullsAndByOverlap() throws {
        let (_, store) = try Self.store()
        try store.appendSleep(Self.unknown)
        try store.append([HistoryRows.sample(30_000)], sleeps: [Self.night, Self.lunch])
        #expect(try store.readSleeps(since: 0, until: 100_000) == [Self.night, Self.lunch, Self.unknown])
        let stored = try store.database.query(
            "SELECT energy_before_wh, energy_after_wh, drain_percent_per_hour, drain_w, wake_reason, mode FROM history_sleeps WHERE start_time = 50000")
        #expect(stored.first.map { row in (0..<6).allSatisfy { row[$0].isNull } } == true)
        // A sleep is in a range it overlaps: started before it, or ending after it.
        #expect(try store.readSleeps(since: 20_000, until: 30_000) == [Self.night])
        #expect(try store.readSleeps(since: 10_800, until: 10_900) == [Self.night, Self.lunch])
        #expect(try store.readSleeps(since: 60_000, until: 70_000) == [])
    }

    /// A file the previous joule wrote (version 1, no sleeps table) keeps its rows and gains the table.
    @Test func aHistoryOfThePreviousSchemaGainsTheSleepsTable() throws {
        let scratch = try Scratch()
        let database = try SQLiteDatabase(path: scratch.database)
        let previous = SQLiteSchema(versionTable: HistoryStore.schema.versionTable, migrations: [HistoryStore.schema.migrations[0]])
        try previous.migrate(database)
        let row = HistoryRows.sample(1_000)
        let id = try #require(try database.query(HistoryRow.insertSample, HistoryRow.values(row)).first?[0].int64)
        for (position, reading) in row.temperatures.enumerated() {
            try database.execute(HistoryRow.insertTemperature, HistoryRow.values(reading, sample: id, position: position))
        }
        // A client reading it before the daemon upgrades it sees no sleeps, not an error.
        let reader = try HistoryStore(readingOnly: scratch.database)
        #expect(try reader.readSleeps(since: 0, until: 1e12) == [])
        #expect(try reader.read(since: 0, until: 2_000).samples == [row])

        let store = try HistoryStore(database: database)
        #expect(try HistoryStore.schema.storedVersion(database) == HistoryStore.schema.version)
        #expect(HistoryStore.schema.version == 2)
        #expect(try store.read(since: 0, until: 2_000).samples == [row])
        try store.appendSleep(Self.lunch)
        #expect(try store.readSleeps(since: 0, until: 1e12) == [Self.lunch])
    }

    @Test func retentionExpiresSleepsWithTheRows() throws {
        let (_, store) = try Self.store()
        let now = 400 * 86_400.0
        let recent = SleepRecord(
            start: now - 86_400, end: now - 80_000, energyBeforeWh: 10, energyAfterWh: 9, drainPercentPerHour: 1, drainW: 0.2,
            wakeReason: nil, mode: "deep")
        // Ends a second inside the year: kept whole though it started before it.
        let straddling = SleepRecord(
            start: now - 365 * 86_400 - 600, end: now - 365 * 86_400 + 1, energyBeforeWh: nil, energyAfterWh: nil,
            drainPercentPerHour: nil, drainW: nil, wakeReason: nil, mode: nil)
        try store.append([], sleeps: [Self.night, straddling, recent])
        let outcome = try store.applyRetention(HistoryRetention(), now: now)
        #expect(outcome.deleted == 1)
        #expect(try store.readSleeps(since: 0, until: 1e12) == [straddling, recent])
    }

    // MARK: JSON

    static func timeline() -> HistoryTimeline {
        HistoryTimeline(
            since: 0, until: 60_000, source: .daemon, database: "/var/lib/joule/history.db",
            samples: [HistoryRows.sample(100)], entries: [], sleeps: [Self.night, Self.lunch, Self.unknown])
    }

    @Test func sleepsAreATopLevelArrayWithTheIssuesKeys() throws {
        let timeline = Self.timeline()
        let text = timeline.json.serialized
        #expect(text.hasSuffix(#""entries":[],"sleeps":[{"start":1000,"end":29800,"energyBeforeWh":50,"energyAfterWh":49.2,"drainPercentPerHour":0.2,"drainW":0.1,"wakeReason":"ACPI LID0 (wakeup_count +1)","mode":"deep","flagged":false},{"start":7200,"end":10800,"energyBeforeWh":40,"energyAfterWh":37.5,"drainPercentPerHour":4.25,"drainW":2.5,"wakeReason":"ACPI PNP0C0D:00 (wakeup_count +1)","mode":"s2idle","flagged":true},{"start":50000,"end":50600,"energyBeforeWh":null,"energyAfterWh":null,"drainPercentPerHour":null,"drainW":null,"wakeReason":null,"mode":null,"flagged":false}]}"#))
        #expect(try HistoryTimeline(json: text) == timeline)
        // An older daemon's reply has no sleeps: none, not an error.
        var older = timeline
        older.sleeps = []
        let withoutKey = text.replacing(#/,"sleeps":\[.*\]\}$/#, with: "}")
        #expect(!withoutKey.contains("sleeps"))
        #expect(try HistoryTimeline(json: withoutKey) == older)
    }

    @Test func aBadSleepNamesItsKey() {
        let text = Self.timeline().json.serialized
        func failure(_ text: String) -> String {
            do {
                _ = try HistoryTimeline(json: text)
                return "decoded"
            } catch {
                return error.description
            }
        }
        #expect(failure(text.replacingOccurrences(of: #""mode":"s2idle""#, with: #""mode":3"#))
            == #"sleeps[1].mode: expected a mem_sleep mode or null, got 3"#)
        #expect(failure(text.replacingOccurrences(of: #""drainW":2.5"#, with: #""drainW":"fast""#))
            == #"sleeps[1].drainW: expected watts or null, got "fast""#)
        #expect(failure(text.replacingOccurrences(of: #""start":7200"#, with: #""start":null"#))
            == #"sleeps[1].start: expected Unix seconds, got null"#)
        #expect(failure(text.replacingOccurrences(of: #""end":10800"#, with: #""end":7000"#))
            == #"sleeps[1].end: expected Unix seconds not before start (7200), got 7000"#)
        #expect(failure(text.replacingOccurrences(of: #""flagged":true"#, with: #""flagged":"yes""#))
            == #"sleeps[1].flagged: expected true or false, got "yes""#)
        #expect(failure(text.replacingOccurrences(of: #","wakeReason":null"#, with: "")) == "sleeps[2].wakeReason: missing")
        #expect(failure(text.replacingOccurrences(of: #""sleeps":["#, with: #""sleeps":[1,"#)) == "sleeps[0]: expected an object, got 1")
        #expect(failure(text.replacing(#/"sleeps":\[.*\]\}$/#, with: #""sleeps":{}}"#))
            == "sleeps: expected an array, got {}")
    }

    // MARK: Text

    @Test func theSummaryListsSleepsAndSaysWhichDrainedFastAndWhatWokeThem() throws {
        let text = HistorySummary(Self.timeline()).text(timeZone: Self.utc)
        let lines = text.split(separator: "\n").map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("Sleeps:") })
        #expect(at == lines.count - 4)
        #expect(lines[at] == "Sleeps:         3, 1 drains fast (over 2 %/h)")
        #expect(lines[at + 1] == "  00:16:40  slept 8h 0m (deep): 0.2 %/h, 0.1 W, woke by ACPI LID0 (wakeup_count +1)")
        #expect(lines[at + 2]
            == "  02:00:00  slept 1h 0m (s2idle): 4.25 %/h, 2.5 W, woke by ACPI PNP0C0D:00 (wakeup_count +1) — drains fast (over 2 %/h)")
        #expect(lines[at + 3] == "  13:53:20  slept 10m 0s: drain unknown, woke by an unknown reason")
        // Without sleeps the summary is as it was.
        var none = Self.timeline()
        none.sleeps = []
        #expect(!HistorySummary(none).text(timeZone: Self.utc).contains("Sleeps"))
    }

    // MARK: The chart

    /// Six hours on battery, asleep from 02:00 to 03:00 (drained fast), then on AC: charging to
    /// 80 % and held there (not charging) from 04:30.
    static func chartTimeline(flagged: Bool = true) -> HistoryTimeline {
        var samples: [HistorySample] = []
        for minute in 0..<360 where minute < 120 || minute >= 180 {
            let time = Double(minute) * 60
            switch minute {
            case ..<120: samples.append(HistoryRows.sample(time, percentage: 70 - Double(minute) / 10))
            case ..<270: samples.append(HistoryRows.sample(time, percentage: 50 + Double(minute - 180) / 3, state: .charging, line: true))
            default: samples.append(HistoryRows.sample(time, percentage: 80, state: .notCharging, line: true))
            }
        }
        let sleep = SleepRecord(
            start: 7_200, end: 10_800, energyBeforeWh: 40, energyAfterWh: flagged ? 37.5 : 39.8, drainPercentPerHour: flagged ? 4.25 : 0.3,
            drainW: flagged ? 2.5 : 0.2, wakeReason: "ACPI LID0", mode: "s2idle")
        return HistoryTimeline(since: 0, until: 6 * 3_600, source: .file, database: nil, samples: samples, entries: [], sleeps: [sleep])
    }

    @Test func theChartHasASleepBandAndAHoldBandWithTheirLegends() throws {
        let chart = HistoryChart(timeline: Self.chartTimeline(), options: HistoryChart.Options(timeZone: Self.utc))
        let svg = chart.svg()
        let (ok, error, check) = XMLCheck.parse(svg)
        #expect(ok, "\(error ?? "")")
        for text in ["Sleep", "Charge limit", "asleep", "asleep, drained fast", "held at the charge limit", "held at the charge limit"] {
            #expect(check.texts.contains(text), "\(text)")
        }
        let sleepRow = try #require(HistoryChartLayout.bandNames.firstIndex(of: "Sleep"))
        let holdRow = try #require(HistoryChartLayout.bandNames.firstIndex(of: "Charge limit"))
        let n = SVGWriter.number
        // The sleep's band spans 02:00–03:00 in the warm colour, drawn over the "no data" hatching.
        let sleep = try #require(chart.layout.bandRuns.first { $0.row == sleepRow })
        #expect(sleep.fill == HistoryPalette.asleepDrainedFast)
        #expect(abs(sleep.x - chart.x(7_200)) < 0.01 && abs(sleep.x + sleep.width - chart.x(10_800)) < 0.01)
        let sleepRect = #"<rect x="\#(n(sleep.x))" y="\#(n(chart.bandTop(sleepRow)))" width="\#(n(sleep.width))" height="18" fill="\#(HistoryPalette.asleepDrainedFast)"/>"#
        let rect = try #require(svg.range(of: sleepRect))
        let layout = chart.layout
        let hatching = try #require(svg.range(
            of: #"<rect x="\#(n(sleep.x))" y="\#(n(layout.bandsTop))" width="\#(n(sleep.width))" height="\#(n(layout.bandsBottom - layout.bandsTop))" fill="url(#nodata)"/>"#))
        #expect(hatching.lowerBound < rect.lowerBound)
        #expect(check.texts.contains("drained fast · 4.3 %/h"))
        // Held from 04:30 (not charging on AC) to the end; nothing before, while charging.
        let holds = chart.layout.bandRuns.filter { $0.row == holdRow }
        #expect(holds.count == 1)
        let hold = try #require(holds.first)
        #expect(hold.fill == HistoryPalette.heldAtLimit)
        #expect(abs(hold.x - chart.x(270 * 60)) < 0.01 && abs(hold.x + hold.width - chart.x(6 * 3_600)) < 0.01)
        #expect(svg.contains(#"<rect x="\#(n(hold.x))" y="\#(n(chart.bandTop(holdRow)))" width="\#(n(hold.width))" height="18" fill="\#(HistoryPalette.heldAtLimit)"/>"#))
        // The gap says why there is no data.
        #expect(chart.layout.labels.contains { $0.role == .noData && $0.text == "asleep" })
        #expect(!chart.layout.labels.contains { $0.role == .noData && $0.text == "no data" })
        // A sleep that drained slowly is the cool colour.
        let calm = HistoryChart(timeline: Self.chartTimeline(flagged: false), options: HistoryChart.Options(timeZone: Self.utc))
        #expect(calm.layout.bandRuns.first { $0.row == sleepRow }?.fill == HistoryPalette.asleep)
    }

    @Test func theNewBandsKeepEveryLabelApartAndInside() {
        for width in [1_200.0, 640] {
            let layout = HistoryChart(timeline: Self.chartTimeline(), options: HistoryChart.Options(width: width, timeZone: Self.utc)).layout
            let boxes = layout.boxes
            for (index, a) in boxes.enumerated() {
                #expect(layout.frame.contains(a.box), "\(width): \(a.what) leaves the picture")
                for b in boxes.dropFirst(index + 1) {
                    #expect(!a.box.intersects(b.box), "\(width): \(a.what) overlaps \(b.what)")
                }
            }
        }
    }

    @Test func theSleepAndHoldColoursStayApart() {
        let fills = [HistoryPalette.asleep, HistoryPalette.asleepDrainedFast, HistoryPalette.heldAtLimit, HistoryPalette.bandOff]
        for (name, deficiency) in HistoryChartTests.deficiencies {
            for (index, a) in fills.enumerated() {
                for b in fills.dropFirst(index + 1) {
                    #expect(HistoryChartTests.difference(a, b, deficiency) >= 15, "\(name): \(a) and \(b)")
                }
            }
        }
        // Their labels are readable on them.
        for fill in fills.dropLast() { #expect(HistoryPalette.contrast(HistoryPalette.ink(on: fill), fill) >= 4.5, "\(fill)") }
    }
}

extension HistorySleepTests {
    /// A damaged sleep row (an infinite start, an end before its start) fails the read, naming
    /// the column, as a damaged marker does: its JSON would be refused by its own decoder.
    @Test func aDamagedSleepRowIsNamed() throws {
        for (column, value) in [("start_time", "-9e999"), ("end_time", "1")] {
            let (_, store) = try Self.store()
            _ = try store.database.execute("PRAGMA ignore_check_constraints = ON")
            try store.database.execute(
                "INSERT INTO history_sleeps (start_time, end_time) VALUES (\(column == "start_time" ? value : "100"), \(column == "end_time" ? value : "200"))")
            #expect {
                _ = try store.readSleeps(since: 0, until: 1_000)
            } throws: { error in
                "\(error)".contains("history_sleeps: \(column) = ")
            }
        }
    }

    /// Found while extending the history fuzz target to sleeps: a damaged row's sleep that began
    /// at -1e308 (finite, and overlapping any range) had its start written as null, which its own
    /// decoder refuses.
    @Test func anAbsurdButFiniteSleepReadsBack() throws {
        let sleep = SleepRecord(
            start: -1e308, end: 1_000, energyBeforeWh: 1e308, energyAfterWh: nil, drainPercentPerHour: -1e307, drainW: nil,
            wakeReason: nil, mode: nil)
        let timeline = HistoryTimeline(since: 0, until: 2_000, source: .file, database: nil, samples: [], entries: [], sleeps: [sleep])
        #expect(try HistoryTimeline(json: timeline.json.serialized).sleeps == [sleep])
        _ = HistorySummary(timeline).text(timeZone: Self.utc)
        let svg = HistoryChart(timeline: timeline, options: HistoryChart.Options(timeZone: Self.utc)).svg()
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }
}

extension HistorySleepTests {
    @Test func sleepsMergeOnceAndInOrder() {
        var timeline = Self.timeline()
        timeline.merge(sleeps: [Self.unknown, Self.lunch, Self.night])
        #expect(timeline.sleeps == [Self.night, Self.lunch, Self.unknown])
        var empty = Self.timeline()
        empty.sleeps = []
        empty.merge(sleeps: [Self.unknown, Self.night])
        #expect(empty.sleeps == [Self.night, Self.unknown])
    }

    /// A young history drops the sleeps that ended before its first row, as it drops markers.
    @Test func aYoungHistoryDropsTheSleepsBeforeItsFirstRow() {
        var timeline = Self.timeline()
        timeline.startAtFirstRow(20_000)
        #expect(timeline.sleeps == [Self.night, Self.unknown])
    }
}

extension HistorySleepTests {
    @Test func thePageListsTheSleeps() {
        let page = HistoryPage(chart: HistoryChart(timeline: Self.timeline(), options: HistoryChart.Options(timeZone: Self.utc))).html()
        #expect(page.contains("<h2>Sleeps</h2>"))
        #expect(page.contains("<tr><td>02:00:00</td><td>slept 1h 0m (s2idle): 4.25 %/h, 2.5 W, woke by ACPI PNP0C0D:00 (wakeup_count +1) — drains fast (over 2 %/h)</td></tr>"))
        var none = Self.timeline()
        none.sleeps = []
        #expect(!HistoryPage(chart: HistoryChart(timeline: none, options: HistoryChart.Options(timeZone: Self.utc))).html().contains("Sleeps"))
    }

    /// The move's log names sleeps only when the legacy file had some (an older joule's has none).
    @Test func theMoveNamesSleepsOnlyWhenThereWereSome() {
        var move = HistoryStore.LegacyMove(
            from: "/s/transfers.db", to: "/s/history.db",
            copied: ["history_samples": 2, "history_temperatures": 4, "history_entries": 1], dropFailure: nil)
        #expect(move.description == "history: moved 2 rows (4 temperature readings) and 1 marker from /s/transfers.db to /s/history.db")
        move.copied["history_sleeps"] = 3
        #expect(move.description
            == "history: moved 2 rows (4 temperature readings), 3 sleeps and 1 marker from /s/transfers.db to /s/history.db")
    }
}
