import Foundation
@testable import JouleHardware
@testable import JouleHistory
import JouleTesting
import Testing

@Suite struct HistoryTimelineTests {
    @Test func anHourIsMeansMajoritiesAndTheWorstThermalState() {
        let rows = [
            HistoryRows.sample(3_600, percentage: 50, state: .discharging, power: 10, lowPowerMode: true, source: .auto, reason: "battery-low", thermal: .fair, celsius: [40, nil]),
            HistoryRows.sample(3_660, percentage: nil, state: .charging, power: nil, lowPowerMode: true, source: .manual, reason: "manual-on", thermal: .serious, celsius: [50, nil], line: true),
            HistoryRows.sample(3_720, percentage: 40, state: .charging, power: 20, lowPowerMode: false, thermal: .nominal, celsius: [60, nil], line: true),
        ]
        let hourly = HistoryRetention().aggregate(rows.reversed())
        #expect(hourly.count == 1)
        let hour = hourly[0]
        #expect(hour.timestamp == 3_600)
        #expect(hour.trigger == .hourly)
        #expect(hour.span == 3_600)
        #expect(hour.percentage == 45)  // unknown rows do not pull the mean to 0
        #expect(hour.powerW == 15)
        #expect(hour.chargeState == .charging)
        #expect(hour.lineOnline == true)
        #expect(hour.lowPowerMode)
        #expect(hour.lowPowerModeSource == .manual)  // the last row that agrees
        #expect(hour.lowPowerModeReason == "manual-on")
        #expect(hour.thermalState == .serious)
        #expect(hour.temperatures == [
            HistoryTemperature(sensor: "thermal_zone0", label: "x86_pkg_temp", celsius: 50),
            HistoryTemperature(sensor: "thermal_zone1", label: "acpitz", celsius: nil),
        ])
        #expect(HistoryRetention.mostFrequent([PowerSupplyState.full, .charging, .charging, .full]) == .full)
        #expect(HistoryRetention.mostFrequent([String?.none, nil]) == nil)
        #expect(HistoryRetention().aggregate([HistoryRows.sample(7_199), HistoryRows.sample(7_200)]).map(\.timestamp) == [3_600, 7_200])
    }

    @Test func rowsStandUntilTheNextUnlessItComesLate() {
        let rows = [
            HistoryRows.sample(1_000), HistoryRows.sample(1_060), HistoryRows.sample(1_070, trigger: .lowPowerMode),
            HistoryRows.sample(1_130, trigger: .stop), HistoryRows.sample(5_000, trigger: .start), HistoryRows.sample(5_060),
        ]
        let intervals = HistoryInterval.intervals(rows, since: 900, until: 5_100)
        #expect(intervals.map { [$0.start, $0.end] } == [
            [1_000, 1_060], [1_060, 1_070], [1_070, 1_130], [1_130, 1_130], [5_000, 5_060], [5_060, 5_100],
        ])
        let gaps = HistoryInterval.gaps(intervals, since: 0, until: 6_000)
        #expect(gaps == [0...1_000, 1_130...5_000, 5_100...6_000])
        // A missed minute is tolerated, three are a gap.
        let late = HistoryInterval.intervals([HistoryRows.sample(0), HistoryRows.sample(170), HistoryRows.sample(420)], since: 0, until: 480)
        #expect(late.map(\.end) == [170, 230, 480])
        let hourly = [HistoryRetention().aggregate([HistoryRows.sample(0)])[0], HistoryRetention().aggregate([HistoryRows.sample(3_600)])[0]]
        #expect(HistoryInterval.intervals(hourly, since: 0, until: 7_200).map(\.end) == [3_600, 7_200])
    }

    /// Issue 32: the range starts at the history's first row when that is later than `since`;
    /// never earlier than asked, never past `until`, and without the markers before it.
    @Test func aYoungHistoryStartsTheRangeAtItsFirstRow() {
        var timeline = HistoryTimeline(
            since: 0, until: 86_400, source: .file, database: nil, samples: [HistoryRows.sample(85_800), HistoryRows.sample(85_860)],
            entries: [HistoryRows.transfer(100, owner: 1000, id: "early"), HistoryRows.transfer(86_000, owner: 1000, id: "t")])
        timeline.startAtFirstRow(85_800)
        #expect(timeline.since == 85_800)
        #expect(timeline.entries.map(\.id) == ["t"])
        for first in [nil, -5, 0, 90_000] as [Double?] {
            var unchanged = Self.timeline()
            unchanged.startAtFirstRow(first)
            #expect(unchanged == Self.timeline(), "\(String(describing: first))")
        }
    }

    static func timeline() -> HistoryTimeline {
        var report = HistoryEntry(
            timestamp: 1_030.5, kind: .report, id: "6C1E2F3A-0B5D", subtype: "CPU_FATAL", subject: "cc1plus",
            detail: "(Limit 80%) Observed 99% over 60 seconds", pid: 48_213)
        report.ownerUID = nil
        return HistoryTimeline(
            since: 900, until: 2_000, source: .file, database: "/var/lib/joule/transfers.db",
            samples: [
                HistoryRows.sample(1_000, trigger: .start, line: nil),
                HistoryRows.sample(1_060, percentage: nil, state: nil, power: nil, lowPowerMode: true, source: .powerProfilesDaemon, reason: "power-saver-profile", thermal: .critical, celsius: [nil, 71.25]),
            ],
            entries: [report, HistoryRows.transfer(1_500, owner: 1000, id: "t1")])
    }

    @Test func theJSONReadsBackAndSaysNullForUnknown() throws {
        let timeline = Self.timeline()
        let text = timeline.json.serialized
        #expect(text.hasPrefix(#"{"since":900,"until":2000,"source":"file","database":"/var/lib/joule/transfers.db","sensors":[{"sensor":"thermal_zone0","label":"x86_pkg_temp"},{"sensor":"thermal_zone1","label":"acpitz"}],"samples":[{"timestamp":1000,"trigger":"start","spanS":null,"percentage":50,"chargeState":"discharging","energyRateW":8.5,"powerW":8,"powerSource":"rapl:psys","lineOnline":null,"lowPowerMode":false,"lowPowerModeSource":"auto","lowPowerModeReason":null,"thermalState":"nominal","temperatures":{"thermal_zone0":45,"thermal_zone1":38}}"#))
        #expect(text.contains(#""percentage":null,"chargeState":null,"energyRateW":null,"powerW":null,"powerSource":null"#))
        #expect(text.contains(#""temperatures":{"thermal_zone0":null,"thermal_zone1":71.25}"#))
        #expect(text.hasSuffix(#"{"timestamp":1500,"kind":"transfer","id":"t1","subtype":"completed","subject":"/home/u/a.iso","detail":null,"pid":null,"bytes":1000,"ownerUID":1000}],"sleeps":[]}"#))
        #expect(try HistoryTimeline(json: text) == timeline)
    }

    @Test func aBadReplyNamesTheKey() {
        let text = Self.timeline().json.serialized
        func failure(_ text: String) -> String {
            do {
                _ = try HistoryTimeline(json: text)
                return "decoded"
            } catch {
                return error.description
            }
        }
        #expect(failure(text.replacingOccurrences(of: #""thermalState":"critical""#, with: #""thermalState":"hot""#))
            == #"samples[1].thermalState: expected one of nominal, fair, serious, critical, got "hot""#)
        #expect(failure(text.replacingOccurrences(of: #""thermal_zone1":71.25"#, with: #""thermal_zone1":"warm""#))
            == #"samples[1].temperatures.thermal_zone1: expected °C or null, got "warm""#)
        #expect(failure(text.replacingOccurrences(of: #","kind":"transfer""#, with: "")) == "entries[1].kind: missing")
        #expect(failure("[1]") == "expected a history object, got [1]")
        #expect(failure("{").hasPrefix("invalid JSON"))
    }

    @Test func reportsMergeOnceAndInOrder() {
        var timeline = Self.timeline()
        let late = HistoryEntry(timestamp: 1_200, kind: .report, id: "other", subtype: "CPU", subject: "x")
        let outside = HistoryEntry(timestamp: 3_000, kind: .report, id: "later", subtype: "CPU", subject: "y")
        timeline.merge([timeline.entries[0], late, outside])
        #expect(timeline.entries.map(\.id) == ["6C1E2F3A-0B5D", "other", "t1"])
        #expect(timeline.entries[0].label == "CPU_FATAL cc1plus [48213]")
        #expect(timeline.entries[2].label == "transfer completed: a.iso")
    }

    @Test func timesOnTheCommandLine() throws {
        let utc = TimeZone(identifier: "UTC")!, berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(try HistoryTimeSpec(spec: "24h") == .ago(86_400))
        #expect(try HistoryTimeSpec(spec: "90m") == .ago(5_400))
        #expect(try HistoryTimeSpec(spec: "1.5d") == .ago(129_600))
        #expect(try HistoryTimeSpec(spec: "2w") == .ago(1_209_600))
        #expect(try HistoryTimeSpec(spec: "45s").resolve(relativeTo: 1_000) == 955)
        #expect(try HistoryTimeSpec(spec: "1773100800") == .at(1_773_100_800))
        #expect(try HistoryTimeSpec(spec: "2026-03-10", timeZone: utc) == .at(1_773_100_800))
        #expect(try HistoryTimeSpec(spec: "2026-03-10T08:30", timeZone: utc) == .at(1_773_131_400))
        #expect(try HistoryTimeSpec(spec: "2026-03-10 08:30:15Z", timeZone: berlin) == .at(1_773_131_415))
        #expect(try HistoryTimeSpec(spec: "2026-03-10T08:30", timeZone: berlin) == .at(1_773_131_400 - 3_600))
        #expect(try HistoryTimeSpec(spec: "2026-03-10T08:30+05:30", timeZone: utc) == .at(1_773_131_400 - 19_800))
        #expect(try HistoryTimeSpec(spec: "2026-03-10T08:30-01:00", timeZone: utc) == .at(1_773_131_400 + 3_600))
        for bad in ["", "h", "-3h", "24x", "yesterday", "2026-02-30", "2026-13-01", "2026-03-10T25:00", "2026-3-1", "0x10", "1e9", "24 h"] {
            #expect(throws: HistoryTimeSpec.SpecError.self, "\(bad)") { try HistoryTimeSpec(spec: bad) }
        }
    }

    /// Found by the history fuzz target (10-minute run): a row holding a huge or non-finite
    /// value trapped the summary's integer conversions. Any double now prints, as what it is.
    @Test func theSummaryPrintsAbsurdValuesWithoutTrapping() {
        #expect(HistorySummary.duration(.infinity) == "unknown" && HistorySummary.duration(.nan) == "unknown")
        #expect(HistorySummary.duration(1e300) == "1e+300 s" && HistorySummary.duration(3_700) == "1 h 1 min")
        #expect(HistorySummary.number(.infinity) == "inf" && HistorySummary.number(-1e300) == "-1e+300")
        #expect(HistorySummary.number(.nan) == "unknown" && HistorySummary.number(9.84) == "9.8" && HistorySummary.number(171) == "171")
        #expect(HistorySummary.percent(1e300) == "1e+300 %" && HistorySummary.percent(.nan) == "unknown %")
        #expect(HistorySummary.percent(-.infinity) == "-inf %" && HistorySummary.percent(49.6) == "50 %")
        let samples = [
            HistoryRows.sample(0, percentage: 1e300, power: .infinity, celsius: [.greatestFiniteMagnitude]),
            HistoryRows.sample(60, percentage: -1e300, power: -.infinity, celsius: [-1e300]),
        ]
        let timeline = HistoryTimeline(since: -1e300, until: 1e300, source: .file, database: nil, samples: samples, entries: [])
        #expect(!HistorySummary(timeline).text(timeZone: TimeZone(identifier: "UTC")!).isEmpty)
    }
}
