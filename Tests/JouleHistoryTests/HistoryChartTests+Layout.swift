import Foundation
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleHistory
import JouleTesting
import Testing

/// Issue 32: the chart checked as a person would look at it. Its layout (a box for every label,
/// legend key and marker label) must have no two boxes overlapping and all inside the picture,
/// over the timelines that broke it; every series has a legend entry; and the pictures render.
extension HistoryChartTests {
    typealias Layout = HistoryChartLayout

    /// `count` sensors named `name(index)`, a reading a minute from `since` for `minutes`.
    static func rows(
        since: Double, minutes: Int, sensors: Int = 3, name: (Int) -> String = { "zone\($0)" },
        gaps: [Range<Int>] = [], lowPower: Range<Int> = 0..<0, thermal: [(Range<Int>, ThermalState)] = []
    ) -> [HistorySample] {
        (0..<minutes).compactMap { minute -> HistorySample? in
            guard !gaps.contains(where: { $0.contains(minute) }) else { return nil }
            var sample = HistoryRows.sample(
                since + Double(minute) * 60, percentage: max(5, 100 - Double(minute) / 15), state: minute < 900 ? .discharging : .charging,
                power: 6 + Double(minute % 17), lowPowerMode: lowPower.contains(minute), reason: lowPower.contains(minute) ? "battery-low" : nil,
                thermal: thermal.first { $0.0.contains(minute) }?.1 ?? .nominal, line: minute >= 900)
            sample.temperatures = (0..<sensors).map {
                HistoryTemperature(sensor: "thermal_zone\($0)", label: name($0), celsius: 40 + Double($0 * 4) + Double(minute % 30) / 3)
            }
            return sample
        }
    }

    static func report(_ time: Double, _ subject: String) -> HistoryEntry {
        HistoryEntry(timestamp: time, kind: .report, id: "r\(time)", subtype: "CPU_FATAL", subject: subject, pid: 4_242)
    }

    /// The timelines that broke the chart, by name.
    static func hardTimelines() -> [(name: String, timeline: HistoryTimeline)] {
        let day = 1_773_100_800.0
        // A new daemon: 10 minutes of rows, asked for the default 24 h.
        var young = HistoryTimeline(
            since: day - 86_400 + 600, until: day + 600, source: .daemon, database: nil, samples: rows(since: day, minutes: 10), entries: [])
        young.startAtFirstRow(day)
        let full = HistoryTimeline(
            since: day, until: day + 86_400, source: .file, database: nil,
            samples: rows(since: day, minutes: 1_440, gaps: [0..<420, 720..<780], lowPower: 840..<1_000, thermal: [(540..<570, .serious), (570..<580, .critical), (580..<600, .fair)]),
            entries: [report(day + 33_000, "cc1plus"), HistoryRows.transfer(day + 68_000, owner: 1000, id: "t1")])
        let eight = HistoryTimeline(
            since: day, until: day + 21_600, source: .file, database: nil,
            samples: rows(since: day, minutes: 360, sensors: 8, name: { ["x86_pkg_temp", "acpitz", "iwlwifi_1", "k10temp Tctl", "nvme Composite", "amdgpu edge", "pch_cannonlake", "BAT0"][$0] }),
            entries: [])
        let crowded = HistoryTimeline(
            since: day, until: day + 7_200, source: .file, database: nil, samples: rows(since: day, minutes: 120),
            entries: (0..<24).map { report(day + 3_000 + Double($0) * 20, "process-with-a-long-name-\($0)") }
                + (0..<6).map { report(day + 7_200 - Double($0) * 30, "at-the-right-edge-\($0)") }
                + [report(day, "at-the-left-edge")])
        let long = HistoryTimeline(
            since: day, until: day + 3_600, source: .file, database: nil,
            samples: rows(since: day, minutes: 60, sensors: 12, name: { "a sensor with a very long name from a hwmon chip that says too much \($0)" }),
            entries: [report(day + 1_800, String(repeating: "averyveryverylongprocessname", count: 8))])
        let empty = HistoryTimeline(since: day, until: day + 86_400, source: .daemon, database: nil, samples: [], entries: [])
        return [("new daemon", young), ("full day", full), ("eight sensors", eight), ("crowded markers", crowded), ("long names", long), ("empty", empty)]
    }

    /// Every pair of boxes apart, every box inside the picture.
    static func overlapsAndOverflows(_ layout: Layout) -> [String] {
        var problems: [String] = []
        let boxes = layout.boxes
        for (index, a) in boxes.enumerated() {
            if !layout.frame.contains(a.box) { problems.append("\(a.what) leaves the picture: \(a.box)") }
            for b in boxes.dropFirst(index + 1) where a.box.intersects(b.box) {
                problems.append("\(a.what) overlaps \(b.what)")
            }
        }
        return problems
    }

    @Test(arguments: [1_200.0, 640])
    func noLabelOverlapsAnotherOrLeavesThePicture(width: Double) {
        for (name, timeline) in Self.hardTimelines() {
            let chart = HistoryChart(timeline: timeline, options: HistoryChart.Options(width: width, timeZone: Self.utc))
            let problems = Self.overlapsAndOverflows(chart.layout)
            #expect(problems.isEmpty, "\(name) at \(width) px: \(problems.prefix(5).joined(separator: "; "))")
            // The SVG's text is the layout's, one for one.
            let texts = XMLCheck.parse(chart.svg()).check.texts
            #expect(Array(texts.dropFirst()) == chart.layout.labels.map(\.text), "\(name)")  // after the <title>
        }
    }

    /// Options.width is public: a NaN, infinite, tiny or huge width draws something, never traps.
    @Test(arguments: [Double.nan, .infinity, -5, 10, 1e7])
    func anAbsurdWidthDrawsWithoutTrapping(width: Double) {
        let chart = HistoryChart(timeline: Self.timeline(), options: HistoryChart.Options(width: width, timeZone: Self.utc))
        #expect(XMLCheck.parse(chart.svg()).ok)
    }

    /// The check itself finds what it is for.
    @Test func theCheckFindsOverlapsAndOverflows() {
        var layout = Self.chart().layout
        #expect(Self.overlapsAndOverflows(layout).isEmpty)
        var copy = layout.labels[0]
        copy.text += " again"
        layout.labels.append(copy)
        copy.x = layout.width - 10
        layout.labels.append(copy)
        let problems = Self.overlapsAndOverflows(layout)
        #expect(problems.contains { $0.contains("overlaps") })
        #expect(problems.contains { $0.contains("leaves the picture") })
    }

    /// Issue 32: a legend listed 4 of 8 sensors (the rest ran off the edge). Every sensor has
    /// an entry with its own colour and dash, wrapping onto more lines, and the panel moves down.
    @Test func everySensorHasALegendEntry() throws {
        for (name, timeline) in Self.hardTimelines() {
            let layout = HistoryChart(timeline: timeline, options: HistoryChart.Options(timeZone: Self.utc)).layout
            let sensors = timeline.sensors
            let temperatureKeys = layout.keys.filter { $0.box.y > layout.power.bottom && $0.box.y < layout.temperature.top }
            #expect(temperatureKeys.count == sensors.count, "\(name)")
            #expect(Set(temperatureKeys.map { "\($0.key)" }).count == sensors.count, "\(name): keys alike")
            for sensor in sensors {
                let full = sensor.label.map { "\($0) (\(sensor.sensor))" } ?? sensor.sensor
                #expect(layout.labels.contains { $0.role == .legend && (full == $0.text || ($0.text.hasSuffix("…") && full.hasPrefix($0.text.dropLast()))) }, "\(name): \(full)")
            }
        }
        let eight = try #require(Self.hardTimelines().first { $0.name == "eight sensors" }).timeline
        let layout = HistoryChart(timeline: eight, options: HistoryChart.Options(timeZone: Self.utc)).layout
        #expect(layout.temperature.top > layout.power.bottom + 50, "the legend's second line pushes the panel down")
    }

    /// Issue 32: a new daemon's chart was 23 h 50 min of "no data". Read through the history
    /// file, 10 minutes of rows make a 10 minute chart with no gap.
    @Test func aNewDaemonsChartStartsAtItsFirstRow() throws {
        let scratch = try TransferScratch()
        let store = try HistoryStore(database: SQLiteDatabase(path: scratch.database))
        let now = 1_773_100_800.0
        try store.append(Self.rows(since: now - 600, minutes: 10))
        let timeline = try HistoryReader.read(stateDirectory: StateDirectory(path: scratch.path), since: now - 86_400, until: now)
        #expect(timeline.since == now - 600)
        let chart = HistoryChart(timeline: timeline, options: HistoryChart.Options(timeZone: Self.utc))
        let svg = chart.svg()
        #expect(svg.components(separatedBy: "fill=\"url(#nodata)\"").count - 1 == 1, "the legend's key only")
        #expect(!chart.layout.labels.contains { $0.role == .noData })
        #expect(chart.layout.labels.filter { $0.role == .time }.count >= 5)
    }

    /// Marker labels stack in three rows and the rest are dropped; every marker keeps its symbol.
    @Test func crowdedMarkerLabelsStackThenDrop() throws {
        let crowded = try #require(Self.hardTimelines().first { $0.name == "crowded markers" }).timeline
        let layout = HistoryChart(timeline: crowded, options: HistoryChart.Options(timeZone: Self.utc)).layout
        let labels = layout.labels.filter { $0.role == .marker }
        #expect(layout.markers.count == crowded.entries.count)
        #expect(Set(labels.map(\.baseline)).count == HistoryChartLayout.markerRows)
        #expect(labels.count < crowded.entries.count && labels.count >= 3)
        #expect(labels.contains { $0.text.contains("at-the-left-edge") })
    }

    /// Each hard timeline rendered by rsvg-convert (and the full day at 640 px): a PNG of the
    /// layout's size with something drawn in it. JOULE_HISTORY_PNG_DIR keeps them for a look.
    @Test func theHardTimelinesRenderToPNG() async throws {
        guard let rsvg = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("SKIPPED: rsvg-convert is not installed (apt-get install librsvg2-bin, or make deps)")
            return
        }
        let kept = ProcessInfo.processInfo.environment["JOULE_HISTORY_PNG_DIR"]
        let directory = kept.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("joule-png-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if kept == nil { try? FileManager.default.removeItem(at: directory) } }
        for (name, timeline) in Self.hardTimelines() + [("narrow", Self.hardTimelines()[1].timeline)] {
            let pixels = name == "narrow" ? 640.0 : 1_200
            let chart = HistoryChart(timeline: timeline, options: HistoryChart.Options(width: pixels, timeZone: Self.utc))
            let file = name.replacingOccurrences(of: " ", with: "-")
            let svg = directory.appendingPathComponent("\(file).svg"), png = directory.appendingPathComponent("\(file).png")
            try chart.svg().write(to: svg, atomically: true, encoding: .utf8)
            let result = try await Program.run(rsvg, ["-o", png.path, svg.path])
            #expect(result.status == 0, "\(name)")
            let bytes = try [UInt8](Data(contentsOf: png))
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name)")
            guard bytes.count > 24 else { continue }
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == Int(pixels) && abs(height - Int(chart.layout.height.rounded())) <= 1, "\(name): \(width)×\(height)")
            // A blank or near-blank picture compresses to a few kilobytes.
            #expect(bytes.count > 20_000, "\(name): \(bytes.count) bytes")
        }
    }

    /// `#rrggbb` as CIELAB, after simulating a colour vision deficiency (Machado et al. 2009,
    /// severity 1, in linear RGB); nil simulates nothing.
    static func lab(_ hex: String, _ deficiency: [[Double]]? = nil) -> [Double] {
        let value = Int(hex.dropFirst(), radix: 16) ?? 0
        var rgb = [value >> 16 & 0xff, value >> 8 & 0xff, value & 0xff].map { channel -> Double in
            let c = Double(channel) / 255
            return c <= 0.040_45 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        if let m = deficiency {
            rgb = m.map { row in min(max(zip(row, rgb).map(*).reduce(0, +), 0), 1) }
        }
        let xyz = [
            (0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2]) / 0.950_47,
            0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2],
            (0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2]) / 1.088_83,
        ].map { $0 > 0.008_856 ? cbrt($0) : 7.787 * $0 + 16.0 / 116 }
        return [116 * xyz[1] - 16, 500 * (xyz[0] - xyz[1]), 200 * (xyz[1] - xyz[2])]
    }

    static let deficiencies: [(String, [[Double]]?)] = [
        ("normal", nil),
        ("protanopia", [[0.152_286, 1.052_583, -0.204_868], [0.114_503, 0.786_281, 0.099_216], [-0.003_882, -0.048_116, 1.051_998]]),
        ("deuteranopia", [[0.367_322, 0.860_646, -0.227_968], [0.280_085, 0.672_501, 0.047_413], [-0.011_820, 0.042_940, 0.968_881]]),
        ("tritanopia", [[1.255_528, -0.076_749, -0.178_779], [-0.078_411, 0.930_809, 0.147_602], [0.004_733, 0.691_367, 0.303_900]]),
    ]

    /// CIE76 colour difference as a viewer with `deficiency` sees it.
    static func difference(_ a: String, _ b: String, _ deficiency: [[Double]]?) -> Double {
        let la = lab(a, deficiency), lb = lab(b, deficiency)
        return sqrt(zip(la, lb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
    }

    /// Issue 32: Low Power Mode's yellow was hard to tell from "fair". Every Low Power Mode fill
    /// differs from every thermal fill, and the thermal states from each other, by a clear
    /// margin for normal, protan, deutan and tritan vision.
    @Test func bandColoursStayApartForColourBlindViewers() {
        let lowPower = LowPowerModeSource.allCases.map(HistoryPalette.lowPowerMode)
        let thermal = ThermalState.allCases.map(HistoryPalette.thermal)
        for (name, deficiency) in Self.deficiencies {
            for a in lowPower {
                for b in thermal + [HistoryPalette.bandOff] {
                    #expect(Self.difference(a, b, deficiency) >= 15, "\(name): Low Power Mode \(a) and \(b)")
                }
            }
            for (index, a) in thermal.enumerated() {
                for b in thermal.dropFirst(index + 1) + [HistoryPalette.bandOff] {
                    #expect(Self.difference(a, b, deficiency) >= 15, "\(name): thermal \(a) and \(b)")
                }
            }
        }
    }

    /// Every series of a chart has its own colour (and dash, beyond the palette's eight colours).
    @Test func everySeriesIsDistinct() {
        let sensors = (0..<24).map { HistoryPalette.sensor($0) }
        #expect(Set(sensors.map { "\($0.color) \($0.dash ?? "")" }).count == 24)
        #expect(Set(sensors.prefix(8).map(\.color)).count == 8)
        let charge = [PowerSupplyState.discharging, .charging, .full, .empty, .unknown].map(HistoryPalette.charge)
        #expect(Set(charge).count == 5)
        #expect(HistoryPalette.measuredPower != HistoryPalette.batteryRate)
    }


}
