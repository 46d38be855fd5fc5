import Foundation
import JouleHardware
import JouleEnergy

/// Where every part of a `HistoryChart` goes, worked out before any SVG is written: the panels',
/// bands' and legends' places, the scales, and a box for every piece of text (its extent
/// estimated from the font), laid so that no two overlap and all stay inside the picture.
/// Legends wrap onto more lines, marker labels stack in three rows, and text without room is
/// dropped (a time or marker label) or shortened with "…" (a long sensor name). Pure: the
/// SVG is written from it, and the tests check its boxes.
struct HistoryChartLayout: Sendable, Hashable {
    struct Box: Sendable, Hashable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
        var maxX: Double { x + width }
        var maxY: Double { y + height }

        func intersects(_ other: Box) -> Bool {
            x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
        }

        func contains(_ other: Box) -> Bool {
            other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
        }
    }

    /// One piece of text, at its anchor and baseline as SVG places it.
    struct Label: Sendable, Hashable {
        enum Anchor: String, Sendable { case start, middle, end }
        /// What it labels, for the tests and the SVG's order.
        enum Role: String, Sendable { case title, subtitle, panelTitle, legend, note, axis, bandName, band, noData, marker, time, date }

        var role: Role
        var text: String
        var x: Double
        var baseline: Double
        var anchor = Anchor.start
        var size = 12.0
        var bold = false
        var italic = false
        var color = HistoryPalette.text

        var width: Double { HistoryChartLayout.textWidth(text, size: size, bold: bold) }

        /// From the ascender to the descender, as wide as the estimated text.
        var box: Box {
            let left = switch anchor {
            case .start: x
            case .middle: x - width / 2
            case .end: x - width
            }
            return Box(x: left, y: baseline - size * 0.8, width: width, height: size * 1.04)
        }
    }

    /// A legend entry's symbol: a series' line, a band's swatch, a marker's shape.
    enum Key: Sendable, Hashable {
        case line(color: String, dash: String?)
        case swatch(fill: String)
        case report(color: String)
        case transfer(color: String)
    }

    struct LegendKey: Sendable, Hashable {
        var key: Key
        var box: Box
    }

    struct Panel: Sendable, Hashable {
        var top: Double
        var height: Double
        var scale: ValueAxis
        var bottom: Double { top + height }

        /// A value's y, kept on the scale: a damaged row's 250 % or ±∞ is drawn at the edge.
        func y(_ value: Double) -> Double {
            let shown = value.isNaN ? scale.low : min(max(value, scale.low), scale.high)
            return bottom - (shown - scale.low) / (scale.high - scale.low) * height
        }
    }

    /// A coloured stretch of a band; `fill` is a colour or a pattern's `url(#…)`.
    struct BandRun: Sendable, Hashable {
        var row: Int
        var x: Double
        var width: Double
        var fill: String
        /// Drawn over the "no data" hatching: a sleep is known from its own record while the
        /// rows stopped, so its band must show through the gap it makes.
        var overGaps = false
    }

    struct Marker: Sendable, Hashable {
        var x: Double
        var kind: HistoryEntry.Kind
        var color: String
    }

    var width: Double
    var height: Double
    var since: Double
    var until: Double
    var plotLeft: Double
    var plotRight: Double
    var laneBottom: Double
    var battery: Panel
    var power: Panel
    var temperature: Panel
    var bandsTop: Double
    var axisTop: Double
    /// The time ticks.
    var ticks: [Double]
    var bandRuns: [BandRun]
    var markers: [Marker]
    var keys: [LegendKey]
    /// Every piece of text of the picture.
    var labels: [Label]

    var plotWidth: Double { plotRight - plotLeft }
    var frame: Box { Box(x: 0, y: 0, width: width, height: height) }
    func bandTop(_ index: Int) -> Double { bandsTop + Double(index) * (Self.bandHeight + Self.bandGap) }
    var bandsBottom: Double { bandTop(Self.bandNames.count - 1) + Self.bandHeight }

    func x(_ time: Double) -> Double {
        let span = max(until - since, 1)
        return plotLeft + (time - since) / span * plotWidth
    }

    /// Every box that must stay clear of the others: the labels' and the legend keys'.
    var boxes: [(what: String, box: Box)] {
        labels.map { ("\($0.role.rawValue) \"\($0.text)\"", $0.box) } + keys.map { ("key \($0.key)", $0.box) }
    }

    static let left = 144.0, right = 28.0
    /// Labels keep this far from the picture's edges.
    static let margin = 4.0
    static let bandHeight = 18.0, bandGap = 6.0
    static let markerRows = 3
    static let bandNames = ["Low Power Mode", "Thermal state", "Line power", "Charge limit", "Sleep"]
    static let sleepRow = 4

    // MARK: Building

    init(
        timeline: HistoryTimeline, width: Double, title: String, axis: TimeAxis, samples: [HistorySample],
        intervals: [HistoryInterval], gaps: [ClosedRange<Double>]
    ) {
        self.width = width
        since = timeline.since
        until = timeline.until
        plotLeft = Self.left
        plotRight = max(width - Self.right, Self.left + 1)
        ticks = axis.ticks
        keys = []
        labels = []
        bandRuns = []
        markers = []
        let textRight = width - Self.margin
        let placeholder = Panel(top: 0, height: 0, scale: ValueAxis(low: 0, high: 1, step: 1))
        battery = placeholder
        power = placeholder
        temperature = placeholder
        bandsTop = 0
        axisTop = 0
        height = 0
        laneBottom = 0

        // The header.
        labels.append(Label(role: .title, text: Self.clip(title, size: 18, bold: true, to: textRight - plotLeft), x: plotLeft, baseline: 28, size: 18, bold: true))
        var subtitle = "\(axis.describe(since)) – \(axis.describe(until)) (\(axis.zoneName))"
        subtitle += " · \(timeline.samples.count) rows"
        let hourly = timeline.samples.filter { $0.trigger == .hourly }.count
        if hourly > 0 { subtitle += " (\(hourly) hourly)" }
        subtitle += " · \(timeline.entries.count) markers"
        labels.append(Label(role: .subtitle, text: Self.clip(subtitle, size: 12, to: textRight - plotLeft), x: plotLeft, baseline: 48, color: HistoryPalette.muted))

        // Marker labels stack above their symbols, in as many rows as they take.
        let laneTop = 60.0
        let rows = placeMarkers(timeline, laneTop: laneTop)
        laneBottom = laneTop + Double(max(rows, 1)) * 13 + 14

        // The panels, each under its title and legend.
        let batteryItems = Self.batteryLegend(samples)
        battery = panel(
            "Battery", titleBaseline: laneBottom + 24, height: 180, items: batteryItems,
            note: batteryItems.isEmpty ? "no battery" : "percentage of the batteries' full charge",
            scale: ValueAxis(low: 0, high: 100, step: 20), unit: "%")
        let measured = samples.compactMap(\.powerW), rates = samples.compactMap(\.energyRateW)
        var powerItems: [(Key, String)] = []
        if !measured.isEmpty {
            let sources = Set(samples.compactMap(\.powerSource)).sorted()
            powerItems.append((.line(color: HistoryPalette.measuredPower, dash: nil), "measured (\(sources.joined(separator: ", ")))"))
        }
        if !rates.isEmpty { powerItems.append((.line(color: HistoryPalette.batteryRate, dash: "5,3"), "battery energy rate")) }
        power = panel(
            "Power", titleBaseline: battery.bottom + 30, height: 140, items: powerItems,
            note: measured.isEmpty ? (rates.isEmpty ? "not measured: no energy meter, no battery rate" : "no energy meter: the batteries' rate only") : nil,
            scale: ValueAxis(covering: measured + rates, ticks: 4, including: 0, fallback: 0...10), unit: "W")
        let sensorItems = timeline.sensors.enumerated().map { index, sensor -> (Key, String) in
            let style = HistoryPalette.sensor(index)
            return (.line(color: style.color, dash: style.dash), sensor.label.map { "\($0) (\(sensor.sensor))" } ?? sensor.sensor)
        }
        temperature = panel(
            "Temperature", titleBaseline: power.bottom + 30, height: 140, items: sensorItems,
            note: sensorItems.isEmpty ? "no temperature sensor" : nil,
            scale: ValueAxis(covering: samples.flatMap { $0.temperatures.compactMap(\.celsius) }, ticks: 4, fallback: 20...60), unit: "°C")

        bandsTop = temperature.bottom + 16
        placeBands(intervals)
        placeSleeps(timeline.sleeps)
        placeNoData(gaps, empty: samples.isEmpty, sleeps: timeline.sleeps)
        axisTop = bandsBottom + 16
        placeTimeLabels(axis)

        // The bands' and markers' keys under the time axis.
        var items: [(Key, String)] = LowPowerModeSource.allCases.map { source in
            (.swatch(fill: HistoryPalette.lowPowerModeFill(source)), source == .auto ? "Low Power Mode (auto)" : "(\(HistoryPalette.lowPowerModeName(source)))")
        }
        items += ThermalState.allCases.map { (.swatch(fill: HistoryPalette.thermal($0)), $0.description) }
        items += [
            (.swatch(fill: HistoryPalette.lineOnline), "on AC"), (.swatch(fill: HistoryPalette.heldAtLimit), "held at the charge limit"),
            (.swatch(fill: HistoryPalette.asleep), "asleep"), (.swatch(fill: HistoryPalette.asleepDrainedFast), "asleep, drained fast"),
            (.swatch(fill: "url(#nodata)"), "no data"),
            (.report(color: HistoryPalette.entry(.report, "CPU_FATAL")), "report"),
            (.transfer(color: HistoryPalette.entry(.transfer, "completed")), "transfer"),
        ]
        let lastBaseline = flow(items, note: nil, from: plotLeft, first: axisTop + 50, lineHeight: 20, size: 12)
        height = lastBaseline + 16
    }

    /// A panel's title with its legend flowing after it (wrapping under itself), its value
    /// axis labels, and its place below them.
    private mutating func panel(
        _ title: String, titleBaseline: Double, height: Double, items: [(Key, String)], note: String?, scale: ValueAxis, unit: String
    ) -> Panel {
        labels.append(Label(role: .panelTitle, text: title, x: plotLeft, baseline: titleBaseline, bold: true))
        let start = plotLeft + Self.textWidth(title, size: 12, bold: true) + 24
        let last = flow(items, note: note, from: start, first: titleBaseline, lineHeight: 17, size: 12)
        let panel = Panel(top: last + 10, height: height, scale: scale)
        for tick in scale.ticks {
            labels.append(Label(
                role: .axis, text: Self.clip("\(scale.label(tick)) \(unit)", size: 12, to: plotLeft - 8 - Self.margin),
                x: plotLeft - 8, baseline: panel.y(tick) + 4, anchor: .end, color: HistoryPalette.muted))
        }
        return panel
    }

    /// Legend entries left to right from `start`, onto a new line at `start` when the next would
    /// cross the plot's right edge; an entry too wide for a whole line is shortened. Returns the
    /// last line's baseline.
    private mutating func flow(_ items: [(Key, String)], note: String?, from start: Double, first: Double, lineHeight: Double, size: Double) -> Double {
        var lx = start, baseline = first
        let limit = plotRight
        func place(_ keyWidth: Double, _ text: String) -> (x: Double, text: String) {
            let gap = keyWidth > 0 ? 5.0 : 0
            let room = limit - start - keyWidth - gap
            let shown = Self.clip(text, size: size, to: room)
            let needed = keyWidth + gap + Self.textWidth(shown, size: size)
            if lx > start, lx + needed > limit {
                lx = start
                baseline += lineHeight
            }
            defer { lx += needed + 16 }
            return (lx, shown)
        }
        for (key, text) in items {
            let keyWidth: Double = if case .line = key { 18 } else { 12 }
            let (x, shown) = place(keyWidth, text)
            keys.append(LegendKey(key: key, box: Box(x: x, y: baseline - 10, width: keyWidth, height: 12)))
            labels.append(Label(role: .legend, text: shown, x: x + keyWidth + 5, baseline: baseline, size: size))
        }
        if let note {
            let (x, shown) = place(0, note)
            labels.append(Label(role: .note, text: shown, x: x, baseline: baseline, size: size, italic: true, color: HistoryPalette.muted))
        }
        return baseline
    }

    private static func batteryLegend(_ samples: [HistorySample]) -> [(Key, String)] {
        var seen: [String] = []
        var items: [(Key, String)] = []
        for sample in samples where sample.percentage != nil {
            let name = HistoryPalette.chargeName(sample.chargeState)
            guard !seen.contains(name) else { continue }
            seen.append(name)
            items.append((.line(color: HistoryPalette.charge(sample.chargeState), dash: nil), name))
        }
        return items
    }

    /// Reports and transfers: a symbol each; its label right of it (left near the right edge)
    /// in the first of the lane's rows with room, or none when every row is taken there.
    /// Returns how many rows the labels take.
    private mutating func placeMarkers(_ timeline: HistoryTimeline, laneTop: Double) -> Int {
        var rowEnds = [Double](repeating: -Double.infinity, count: Self.markerRows)
        let entries = timeline.entries.filter { $0.timestamp >= since && $0.timestamp <= until }.sorted { $0.timestamp < $1.timestamp }
        for entry in entries {
            let mx = x(entry.timestamp), color = HistoryPalette.entry(entry)
            markers.append(Marker(x: mx, kind: entry.kind, color: color))
            let text = Self.clip(entry.label, size: 11, to: 320), textWidth = Self.textWidth(text, size: 11)
            let rightOf = mx + 9 + textWidth <= width - Self.margin
            let start = rightOf ? mx + 9 : mx - 9 - textWidth
            guard start >= Self.margin, let row = rowEnds.firstIndex(where: { $0 + 8 <= start }) else { continue }
            rowEnds[row] = start + textWidth
            labels.append(Label(
                role: .marker, text: text, x: rightOf ? start : mx - 9, baseline: laneTop + 11 + Double(row) * 13,
                anchor: rightOf ? .start : .end, size: 11))
        }
        return rowEnds.filter(\.isFinite).count
    }

    /// Low Power Mode, thermal state, line power and the charge limit's hold as runs of one
    /// value, labelled where wide enough.
    private mutating func placeBands(_ intervals: [HistoryInterval]) {
        // Each value's labels, longest first: a run shows the longest that fits it.
        let rows: [(HistorySample) -> (fill: String, ink: String, labels: [String])?] = [
            { sample in
                guard sample.lowPowerMode else { return nil }
                let source = sample.lowPowerModeSource
                var labels = ["on · \(source.rawValue)", HistoryPalette.lowPowerModeName(source)]
                if let reason = sample.lowPowerModeReason, source == .auto { labels.insert("on · auto · \(reason)", at: 0) }
                return (HistoryPalette.lowPowerModeFill(source), HistoryPalette.ink(on: HistoryPalette.lowPowerMode(source)), labels)
            },
            { sample in
                let color = HistoryPalette.thermal(sample.thermalState)
                return (color, HistoryPalette.ink(on: color), [sample.thermalState.description])
            },
            { sample in sample.lineOnline == true ? (HistoryPalette.lineOnline, HistoryPalette.ink(on: HistoryPalette.lineOnline), ["on AC", "AC"]) : nil },
            // On AC yet not charging: what the kernel reports while a threshold or
            // inhibit-charge holds the battery (a full battery says "full").
            { sample in
                guard sample.lineOnline == true, sample.chargeState == .notCharging else { return nil }
                return (HistoryPalette.heldAtLimit, HistoryPalette.ink(on: HistoryPalette.heldAtLimit), ["held at the charge limit", "held"])
            },
        ]
        for (index, value) in rows.enumerated() {
            let top = bandTop(index)
            labels.append(Label(role: .bandName, text: Self.bandNames[index], x: plotLeft - 8, baseline: top + 13, anchor: .end, bold: true))
            var runs: [(start: Double, end: Double, fill: String, ink: String, labels: [String])] = []
            for interval in intervals where interval.end > interval.start {
                guard let value = value(interval.sample) else { continue }
                if let last = runs.last, last.labels == value.labels, last.fill == value.fill, interval.start - last.end <= 0.5 {
                    runs[runs.count - 1].end = interval.end
                } else {
                    runs.append((interval.start, interval.end, value.fill, value.ink, value.labels))
                }
            }
            for run in runs {
                let x0 = x(run.start), width = max(x(run.end) - x0, 0.5)
                bandRuns.append(BandRun(row: index, x: x0, width: width, fill: run.fill))
                if let text = run.labels.first(where: { width >= Self.textWidth($0, size: 11) + 10 }) {
                    labels.append(Label(role: .band, text: text, x: x0 + 5, baseline: top + 13, size: 11, color: run.ink))
                }
            }
        }
    }

    /// Each sleep's band over its time, in the warm colour when it drained fast, labelled with
    /// its drain and wake reason as far as the run has room.
    private mutating func placeSleeps(_ sleeps: [SleepRecord]) {
        let top = bandTop(Self.sleepRow)
        labels.append(Label(role: .bandName, text: Self.bandNames[Self.sleepRow], x: plotLeft - 8, baseline: top + 13, anchor: .end, bold: true))
        for sleep in sleeps {
            let start = max(sleep.start, since), end = min(sleep.end, until)
            guard end >= start else { continue }
            let x0 = x(start), width = max(x(end) - x0, 0.5)
            let fill = sleep.isFlagged ? HistoryPalette.asleepDrainedFast : HistoryPalette.asleep
            bandRuns.append(BandRun(row: Self.sleepRow, x: x0, width: width, fill: fill, overGaps: true))
            let head = sleep.isFlagged ? "drained fast" : "asleep"
            let rate = sleep.drainPercentPerHour.map { "\(HistorySummary.number($0)) %/h" }
            let woke = sleep.wakeReason.map { "woke by \($0)" }
            // The reason without its detail: "ACPI LID0 (wakeup_count +1)" as "ACPI LID0".
            let wokeShort = sleep.wakeReason.map { "woke by " + ($0.components(separatedBy: " (").first ?? $0) }
            var texts = [[head, rate, woke], [head, rate, wokeShort], [head, rate], sleep.isFlagged ? [rate ?? "fast"] : [head]]
                .map { $0.compactMap { $0 }.joined(separator: " · ") }
            texts = texts.enumerated().filter { index, text in !texts.prefix(index).contains(text) }.map(\.element)
            if let text = texts.first(where: { width >= Self.textWidth($0, size: 11) + 10 }) {
                labels.append(Label(role: .band, text: text, x: x0 + 5, baseline: top + 13, size: 11, color: HistoryPalette.ink(on: fill)))
            }
        }
    }

    /// "no data" in the middle of each gap wide enough for it; "asleep" where a sleep covers
    /// most of the gap, since that is why there are no rows.
    private mutating func placeNoData(_ gaps: [ClosedRange<Double>], empty: Bool, sleeps: [SleepRecord]) {
        for gap in gaps {
            let asleep = sleeps.reduce(0.0) { $0 + max(min($1.end, gap.upperBound) - max($1.start, gap.lowerBound), 0) }
            let text = asleep * 2 >= gap.upperBound - gap.lowerBound ? "asleep" : empty ? "no history recorded in this time" : "no data"
            let x0 = x(gap.lowerBound), width = x(gap.upperBound) - x0
            guard width >= Self.textWidth(text, size: 12) + 12 else { continue }
            labels.append(Label(
                role: .noData, text: text, x: x0 + width / 2, baseline: battery.top + battery.height / 2, anchor: .middle,
                italic: true, color: HistoryPalette.muted))
        }
    }

    /// Each tick's time centred under it (moved inside the picture at its edges), the date under
    /// the first and each midnight; one that would touch the previous is left out.
    private mutating func placeTimeLabels(_ axis: TimeAxis) {
        var lastEnd: [Label.Role: Double] = [:]
        for (tick, (time, date)) in zip(axis.ticks, zip(axis.labels, axis.dateLabels)) {
            let tx = x(tick)
            for (role, text, baseline, bold) in [(Label.Role.time, time, axisTop + 8, false), (.date, date, axisTop + 24, true)] {
                guard let text else { continue }
                let half = Self.textWidth(text, size: 12, bold: bold) / 2
                var label = Label(role: role, text: text, x: tx, baseline: baseline, anchor: .middle, bold: bold)
                if tx + half > width - Self.margin {
                    label.x = width - Self.margin
                    label.anchor = .end
                } else if tx - half < Self.margin {
                    label.x = Self.margin
                    label.anchor = .start
                }
                guard label.box.x >= (lastEnd[role] ?? -.infinity) + 6 else { continue }
                lastEnd[role] = label.box.maxX
                labels.append(label)
            }
        }
    }

    // MARK: Text

    /// An estimate of a label's width in DejaVu Sans (the widest of the fonts the SVG names),
    /// from its glyphs' advances, a little generous so that estimated boxes that do not touch
    /// rendered glyphs that do not either.
    static func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        var ems = 0.0
        for character in text {
            let em: Double = switch character {
            case "i", "j", "l", "I", "'", "|", ".", ",", ":", ";", "!", " ", "·": 0.33
            case "f", "t", "r", "(", ")", "[", "]", "-", "/": 0.42
            case "m", "w", "M", "W", "%", "@", "…", "–", "—": 0.95
            case _ where character.isUppercase || character.isNumber: 0.72
            default: 0.62
            }
            ems += em
        }
        return ems * size * (bold ? 1.1 : 1)
    }

    /// `text`, shortened with "…" to fit `width` (at least its first character and the "…").
    static func clip(_ text: String, size: Double, bold: Bool = false, to width: Double) -> String {
        guard textWidth(text, size: size, bold: bold) > width else { return text }
        var kept = Substring(text)
        while kept.count > 1, textWidth(kept + "…", size: size, bold: bold) > width { kept = kept.dropLast() }
        return kept + "…"
    }
}
