import Foundation
import JouleHardware

/// The history as one SVG picture, in the manner of GNOME Power Statistics but on one time
/// axis: the battery's charge (coloured by charge state), the measured power beside the
/// batteries' own rate, every temperature sensor, and bands for Low Power Mode (by source),
/// the thermal state and line power, with report and transfer markers. Time with no rows is
/// hatched as "no data" and no line crosses it. Pure: the same timeline and options give the
/// same text.
public struct HistoryChart: Sendable {
    public struct Options: Sendable {
        public var width: Double
        public var title: String
        /// Ticks and labels are in this zone's local time.
        public var timeZone: TimeZone

        public init(width: Double = 1200, title: String = "Battery, power and temperature", timeZone: TimeZone = .current) {
            self.width = width
            self.title = title
            self.timeZone = timeZone
        }
    }

    public let timeline: HistoryTimeline
    public let options: Options

    public init(timeline: HistoryTimeline, options: Options = Options()) {
        self.timeline = timeline
        self.options = options
    }

    // MARK: Layout

    struct Panel {
        var title: String
        var top: Double
        var height: Double
        var bottom: Double { top + height }
    }

    static let left = 144.0, right = 28.0
    static let markerLane = (top: 62.0, height: 36.0)
    static let bandHeight = 18.0, bandGap = 6.0
    static let font = "DejaVu Sans, Cantarell, Helvetica, Arial, sans-serif"

    var plotLeft: Double { Self.left }
    var plotRight: Double { options.width - Self.right }
    var plotWidth: Double { plotRight - plotLeft }

    var battery: Panel { Panel(title: "Battery", top: 126, height: 180) }
    var power: Panel { Panel(title: "Power", top: battery.bottom + 34, height: 140) }
    var temperature: Panel { Panel(title: "Temperature", top: power.bottom + 34, height: 140) }
    var bandsTop: Double { temperature.bottom + 16 }
    func bandTop(_ index: Int) -> Double { bandsTop + Double(index) * (Self.bandHeight + Self.bandGap) }
    var bandsBottom: Double { bandTop(2) + Self.bandHeight }
    var axisTop: Double { bandsBottom + 16 }
    var legendTop: Double { axisTop + 46 }
    var height: Double { legendTop + 30 }

    func x(_ time: Double) -> Double {
        let span = max(timeline.until - timeline.since, 1)
        return plotLeft + (time - timeline.since) / span * plotWidth
    }

    /// The rows to draw: as recorded, or averaged into buckets when there are more rows than
    /// pixels (a month or a year), which draws the same shape in a fraction of the text.
    var drawnSamples: [HistorySample] {
        guard Double(timeline.samples.count) > plotWidth * 2 else { return timeline.samples }
        let bucket = ((timeline.until - timeline.since) / plotWidth).rounded(.up)
        return HistoryRetention(bucket: max(bucket, 60)).aggregate(timeline.samples)
    }

    // MARK: Drawing

    /// A standalone SVG document.
    public func svg() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svgElement()
    }

    /// The `<svg>` element alone, for inlining in HTML.
    public func svgElement() -> String {
        let samples = drawnSamples
        let intervals = HistoryInterval.intervals(samples, since: timeline.since, until: timeline.until)
        let gaps = HistoryInterval.gaps(intervals, since: timeline.since, until: timeline.until)
        let axis = TimeAxis(since: timeline.since, until: timeline.until, timeZone: options.timeZone, maxTicks: Int(plotWidth / 84))
        var svg = SVGWriter()
        let w = SVGWriter.number(options.width), h = SVGWriter.number(height)
        svg.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("width", w), ("height", h), ("viewBox", "0 0 \(w) \(h)"),
            ("font-family", Self.font), ("font-size", "12"), ("role", "img"), ("aria-label", options.title),
        ])
        svg.element("title", content: options.title)
        svg.open("defs")
        svg.open("pattern", [
            ("id", "nodata"), ("patternUnits", "userSpaceOnUse"), ("width", "8"), ("height", "8"),
            ("patternTransform", "rotate(45)"),
        ])
        svg.element("rect", [("width", "8"), ("height", "8"), ("fill", HistoryPalette.bandOff)])
        svg.element("line", [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "8"), ("stroke", HistoryPalette.noData), ("stroke-width", "2")])
        svg.close("pattern")
        svg.close("defs")
        svg.element("rect", [("width", w), ("height", h), ("fill", HistoryPalette.background)])
        header(&svg, axis: axis)
        for panel in [battery, power, temperature] { frame(&svg, panel, axis: axis) }
        batteryPanel(&svg, samples: samples, intervals: intervals)
        powerPanel(&svg, samples: samples, intervals: intervals)
        temperaturePanel(&svg, samples: samples, intervals: intervals)
        bands(&svg, intervals: intervals)
        noData(&svg, gaps: gaps, empty: samples.isEmpty)
        markers(&svg)
        timeLabels(&svg, axis: axis)
        legend(&svg)
        svg.close("svg")
        return svg.text
    }

    private func header(_ svg: inout SVGWriter, axis: TimeAxis) {
        svg.element("text", [("x", SVGWriter.number(plotLeft)), ("y", "28"), ("font-size", "18"), ("font-weight", "bold"), ("fill", HistoryPalette.text)], content: options.title)
        var subtitle = "\(axis.describe(timeline.since)) – \(axis.describe(timeline.until)) (\(axis.zoneName))"
        subtitle += " · \(timeline.samples.count) rows"
        let hourly = timeline.samples.filter { $0.trigger == .hourly }.count
        if hourly > 0 { subtitle += " (\(hourly) hourly)" }
        subtitle += " · \(timeline.entries.count) markers"
        svg.element("text", [("x", SVGWriter.number(plotLeft)), ("y", "48"), ("fill", HistoryPalette.muted)], content: subtitle)
    }

    /// A panel's title, frame, vertical gridlines at the time ticks.
    private func frame(_ svg: inout SVGWriter, _ panel: Panel, axis: TimeAxis) {
        svg.element("text", [("x", SVGWriter.number(plotLeft)), ("y", SVGWriter.number(panel.top - 10)), ("font-weight", "bold"), ("fill", HistoryPalette.text)], content: panel.title)
        svg.element("rect", [
            ("x", SVGWriter.number(plotLeft)), ("y", SVGWriter.number(panel.top)), ("width", SVGWriter.number(plotWidth)),
            ("height", SVGWriter.number(panel.height)), ("fill", "none"), ("stroke", HistoryPalette.frame),
        ])
        let lines = axis.ticks.map { tick in
            "M\(SVGWriter.number(x(tick))),\(SVGWriter.number(panel.top)) V\(SVGWriter.number(panel.bottom))"
        }
        if !lines.isEmpty {
            svg.element("path", [("d", lines.joined(separator: " ")), ("stroke", HistoryPalette.grid), ("fill", "none")])
        }
    }

    /// Horizontal gridlines and labels for `scale` in `panel`; returns the value → y mapping.
    private func valueAxis(_ svg: inout SVGWriter, _ panel: Panel, _ scale: ValueAxis, unit: String) -> (Double) -> Double {
        let y = { (value: Double) -> Double in
            // Beyond the scale (a damaged row's 250 %, or ±∞) is drawn at its edge, never off the
            // picture or as a non-finite coordinate.
            let shown = value.isNaN ? scale.low : min(max(value, scale.low), scale.high)
            return panel.bottom - (shown - scale.low) / (scale.high - scale.low) * panel.height
        }
        var lines: [String] = []
        for tick in scale.ticks {
            let ty = y(tick)
            if tick > scale.low && tick < scale.high {
                lines.append("M\(SVGWriter.number(plotLeft)),\(SVGWriter.number(ty)) H\(SVGWriter.number(plotRight))")
            }
            svg.element("text", [
                ("x", SVGWriter.number(plotLeft - 8)), ("y", SVGWriter.number(ty + 4)), ("text-anchor", "end"),
                ("fill", HistoryPalette.muted),
            ], content: "\(scale.label(tick)) \(unit)")
        }
        if !lines.isEmpty {
            svg.element("path", [("d", lines.joined(separator: " ")), ("stroke", HistoryPalette.grid), ("fill", "none")])
        }
        return y
    }

    /// Runs of consecutive drawable points of one series: a run ends at a gap, an unknown
    /// value, or where `key` changes (the new run starts at the last point, so the line stays whole).
    private func runs<Key: Equatable>(
        _ samples: [HistorySample], _ intervals: [HistoryInterval], value: (HistorySample) -> Double?,
        key: (HistorySample) -> Key
    ) -> [(key: Key, points: [(Double, Double)])] {
        var runs: [(key: Key, points: [(Double, Double)])] = []
        var current: (key: Key, points: [(Double, Double)])?
        var previousEnd = -Double.infinity
        for (sample, interval) in zip(samples, intervals) {
            defer { previousEnd = interval.end }
            guard let v = value(sample) else {
                if let run = current { runs.append(run) }
                current = nil
                continue
            }
            let point = (HistoryInterval.pointTime(sample), v)
            let contiguous = sample.timestamp - previousEnd <= 0.5
            if var run = current, contiguous {
                if run.key == key(sample) {
                    run.points.append(point)
                    current = run
                } else {
                    run.points.append(point)
                    runs.append(run)
                    current = (key(sample), [point])
                }
            } else {
                if let run = current { runs.append(run) }
                current = (key(sample), [point])
            }
        }
        if let run = current { runs.append(run) }
        return runs
    }

    private func polyline(
        _ svg: inout SVGWriter, _ points: [(Double, Double)], y: (Double) -> Double, color: String, width: Double = 2,
        dash: String? = nil
    ) {
        let mapped = points.map { (x($0.0), y($0.1)) }
        if mapped.count == 1 {
            svg.element("circle", [("cx", SVGWriter.number(mapped[0].0)), ("cy", SVGWriter.number(mapped[0].1)), ("r", "2"), ("fill", color)])
            return
        }
        var attributes = [
            ("d", SVGWriter.path(mapped)), ("fill", "none"), ("stroke", color), ("stroke-width", SVGWriter.number(width)),
            ("stroke-linejoin", "round"), ("stroke-linecap", "round"),
        ]
        if let dash { attributes.append(("stroke-dasharray", dash)) }
        svg.element("path", attributes)
    }

    /// The panel's legend after its title: coloured keys and names, left to right.
    private func panelLegend(_ svg: inout SVGWriter, _ panel: Panel, _ items: [(color: String, name: String, dashed: Bool)], note: String? = nil) {
        var lx = plotLeft + Self.textWidth(panel.title, size: 12, bold: true) + 24
        let ly = panel.top - 10
        for item in items {
            var attributes = [
                ("x1", SVGWriter.number(lx)), ("y1", SVGWriter.number(ly - 4)), ("x2", SVGWriter.number(lx + 18)),
                ("y2", SVGWriter.number(ly - 4)), ("stroke", item.color), ("stroke-width", "3"),
            ]
            if item.dashed { attributes.append(("stroke-dasharray", "5,3")) }
            svg.element("line", attributes)
            svg.element("text", [("x", SVGWriter.number(lx + 23)), ("y", SVGWriter.number(ly)), ("fill", HistoryPalette.text)], content: item.name)
            lx += 23 + Self.textWidth(item.name, size: 12) + 16
        }
        if let note {
            svg.element("text", [("x", SVGWriter.number(lx)), ("y", SVGWriter.number(ly)), ("fill", HistoryPalette.muted), ("font-style", "italic")], content: note)
        }
    }

    private func batteryPanel(_ svg: inout SVGWriter, samples: [HistorySample], intervals: [HistoryInterval]) {
        let panel = battery
        let y = valueAxis(&svg, panel, ValueAxis(low: 0, high: 100, step: 20), unit: "%")
        let runs = runs(samples, intervals, value: \.percentage) { HistoryPalette.charge($0.chargeState) }
        for (color, points) in runs where points.count > 1 {
            let mapped = points.map { (x($0.0), y($0.1)) }
            let area = SVGWriter.path(mapped)
                + " L\(SVGWriter.number(mapped[mapped.count - 1].0)),\(SVGWriter.number(panel.bottom))"
                + " L\(SVGWriter.number(mapped[0].0)),\(SVGWriter.number(panel.bottom)) Z"
            svg.element("path", [("d", area), ("fill", color), ("fill-opacity", "0.14"), ("stroke", "none")])
        }
        for (color, points) in runs { polyline(&svg, points, y: y, color: color) }
        var seen: [String] = []
        var items: [(color: String, name: String, dashed: Bool)] = []
        for sample in samples where sample.percentage != nil {
            let name = HistoryPalette.chargeName(sample.chargeState)
            guard !seen.contains(name) else { continue }
            seen.append(name)
            items.append((HistoryPalette.charge(sample.chargeState), name, false))
        }
        panelLegend(&svg, panel, items, note: items.isEmpty ? "no battery" : "percentage of the batteries' full charge")
    }

    private func powerPanel(_ svg: inout SVGWriter, samples: [HistorySample], intervals: [HistoryInterval]) {
        let panel = power
        let measured = samples.compactMap(\.powerW), rates = samples.compactMap(\.energyRateW)
        let scale = ValueAxis(covering: measured + rates, ticks: 4, including: 0, fallback: 0...10)
        let y = valueAxis(&svg, panel, scale, unit: "W")
        for run in runs(samples, intervals, value: \.energyRateW, key: { _ in 0 }) {
            polyline(&svg, run.points, y: y, color: HistoryPalette.batteryRate, width: 1.5, dash: "5,3")
        }
        for run in runs(samples, intervals, value: \.powerW, key: { _ in 0 }) {
            polyline(&svg, run.points, y: y, color: HistoryPalette.measuredPower)
        }
        var items: [(color: String, name: String, dashed: Bool)] = []
        let sources = Set(samples.compactMap(\.powerSource)).sorted()
        if !measured.isEmpty {
            items.append((HistoryPalette.measuredPower, "measured (\(sources.joined(separator: ", ")))", false))
        }
        if !rates.isEmpty { items.append((HistoryPalette.batteryRate, "battery energy rate", true)) }
        let note = measured.isEmpty ? (rates.isEmpty ? "not measured: no energy meter, no battery rate" : "no energy meter: the batteries' rate only") : nil
        panelLegend(&svg, panel, items, note: note)
    }

    private func temperaturePanel(_ svg: inout SVGWriter, samples: [HistorySample], intervals: [HistoryInterval]) {
        let panel = temperature
        let readings = samples.flatMap { $0.temperatures.compactMap(\.celsius) }
        let scale = ValueAxis(covering: readings, ticks: 4, fallback: 20...60)
        let y = valueAxis(&svg, panel, scale, unit: "°C")
        var items: [(color: String, name: String, dashed: Bool)] = []
        for (index, sensor) in timeline.sensors.enumerated() {
            let color = HistoryPalette.sensors[index % HistoryPalette.sensors.count]
            let sensorRuns = runs(samples, intervals, value: { $0.celsius(sensor.sensor) }, key: { _ in 0 })
            for run in sensorRuns { polyline(&svg, run.points, y: y, color: color, width: 1.6) }
            items.append((color, sensor.label.map { "\($0) (\(sensor.sensor))" } ?? sensor.sensor, false))
        }
        panelLegend(&svg, panel, items, note: items.isEmpty ? "no temperature sensor" : nil)
    }

    /// Low Power Mode, thermal state and line power as coloured runs, labelled where wide enough.
    private func bands(_ svg: inout SVGWriter, intervals: [HistoryInterval]) {
        let rows: [(name: String, value: (HistorySample) -> (color: String, label: String)?)] = [
            ("Low Power Mode", { sample in
                guard sample.lowPowerMode else { return nil }
                var label = "on · \(sample.lowPowerModeSource.rawValue)"
                if let reason = sample.lowPowerModeReason, sample.lowPowerModeSource == .auto { label += " · \(reason)" }
                return (HistoryPalette.lowPowerMode(sample.lowPowerModeSource), label)
            }),
            ("Thermal state", { sample in (HistoryPalette.thermal(sample.thermalState), sample.thermalState.description) }),
            ("Line power", { sample in sample.lineOnline == true ? (HistoryPalette.lineOnline, "on AC") : nil }),
        ]
        for (index, row) in rows.enumerated() {
            let top = bandTop(index)
            svg.element("text", [
                ("x", SVGWriter.number(plotLeft - 8)), ("y", SVGWriter.number(top + 13)), ("text-anchor", "end"),
                ("font-weight", "bold"), ("fill", HistoryPalette.text),
            ], content: row.name)
            svg.element("rect", [
                ("x", SVGWriter.number(plotLeft)), ("y", SVGWriter.number(top)), ("width", SVGWriter.number(plotWidth)),
                ("height", SVGWriter.number(Self.bandHeight)), ("fill", HistoryPalette.bandOff),
            ])
            var runs: [(start: Double, end: Double, color: String, label: String)] = []
            for interval in intervals where interval.end > interval.start {
                guard let value = row.value(interval.sample) else { continue }
                if let last = runs.last, last.label == value.label, last.color == value.color, interval.start - last.end <= 0.5 {
                    runs[runs.count - 1].end = interval.end
                } else {
                    runs.append((interval.start, interval.end, value.color, value.label))
                }
            }
            for run in runs {
                let x0 = x(run.start), width = max(x(run.end) - x0, 0.5)
                svg.element("rect", [
                    ("x", SVGWriter.number(x0)), ("y", SVGWriter.number(top)), ("width", SVGWriter.number(width)),
                    ("height", SVGWriter.number(Self.bandHeight)), ("fill", run.color),
                ])
                if width >= Self.textWidth(run.label, size: 11) + 10 {
                    svg.element("text", [
                        ("x", SVGWriter.number(x0 + 5)), ("y", SVGWriter.number(top + 13)), ("font-size", "11"),
                        ("fill", HistoryPalette.ink(on: run.color)),
                    ], content: run.label)
                }
            }
        }
    }

    /// Hatches every stretch without rows across the panels and bands.
    private func noData(_ svg: inout SVGWriter, gaps: [ClosedRange<Double>], empty: Bool) {
        let areas = [battery, power, temperature].map { ($0.top, $0.height) } + [(bandsTop, bandsBottom - bandsTop)]
        for gap in gaps {
            let x0 = x(gap.lowerBound), width = x(gap.upperBound) - x0
            guard width >= 0.5 else { continue }
            for (top, height) in areas {
                svg.element("rect", [
                    ("x", SVGWriter.number(x0)), ("y", SVGWriter.number(top)), ("width", SVGWriter.number(width)),
                    ("height", SVGWriter.number(height)), ("fill", "url(#nodata)"),
                ])
            }
            let label = empty ? "no history recorded in this time" : "no data"
            if width >= Self.textWidth(label, size: 12) + 12 {
                svg.element("text", [
                    ("x", SVGWriter.number(x0 + width / 2)), ("y", SVGWriter.number(battery.top + battery.height / 2)),
                    ("text-anchor", "middle"), ("fill", HistoryPalette.muted), ("font-style", "italic"),
                ], content: label)
            }
        }
    }

    /// Reports and transfers: a symbol in the lane above the panels, a dashed line down through
    /// them, and a label where two rows of the lane leave room.
    private func markers(_ svg: inout SVGWriter) {
        let laneBottom = Self.markerLane.top + Self.markerLane.height
        var rowEnds = [-Double.infinity, -Double.infinity]
        for entry in timeline.entries where entry.timestamp >= timeline.since && entry.timestamp <= timeline.until {
            let mx = x(entry.timestamp), color = HistoryPalette.entry(entry)
            svg.element("path", [
                ("d", "M\(SVGWriter.number(mx)),\(SVGWriter.number(laneBottom)) V\(SVGWriter.number(bandsBottom))"),
                ("stroke", color), ("stroke-dasharray", "4,3"), ("stroke-width", "1.2"), ("fill", "none"),
            ])
            switch entry.kind {
            case .report:
                let top = laneBottom - 10
                svg.element("path", [
                    ("d", "M\(SVGWriter.number(mx - 6)),\(SVGWriter.number(top)) L\(SVGWriter.number(mx + 6)),\(SVGWriter.number(top)) L\(SVGWriter.number(mx)),\(SVGWriter.number(laneBottom)) Z"),
                    ("fill", color),
                ])
            case .transfer:
                svg.element("circle", [
                    ("cx", SVGWriter.number(mx)), ("cy", SVGWriter.number(laneBottom - 5)), ("r", "5"), ("fill", color),
                    ("stroke", "#ffffff"), ("stroke-width", "1"),
                ])
            }
            let label = entry.label, width = Self.textWidth(label, size: 11)
            // Right of the symbol, or left of it near the right edge.
            let leftAligned = mx + 9 + width <= options.width - 4
            let start = leftAligned ? mx + 9 : mx - 9 - width
            guard let row = rowEnds.firstIndex(where: { $0 + 8 <= start }) else { continue }
            rowEnds[row] = start + width
            svg.element("text", [
                ("x", SVGWriter.number(leftAligned ? start : mx - 9)), ("y", SVGWriter.number(Self.markerLane.top + 10 + Double(row) * 13)),
                ("font-size", "11"), ("fill", color), ("text-anchor", leftAligned ? "start" : "end"),
            ], content: label)
        }
    }

    private func timeLabels(_ svg: inout SVGWriter, axis: TimeAxis) {
        for (tick, (label, date)) in zip(axis.ticks, zip(axis.labels, axis.dateLabels)) {
            let tx = x(tick)
            svg.element("path", [("d", "M\(SVGWriter.number(tx)),\(SVGWriter.number(bandsBottom)) V\(SVGWriter.number(axisTop - 4))"), ("stroke", HistoryPalette.frame)])
            svg.element("text", centred(label, at: tx, y: axisTop + 8, size: 12) + [("fill", HistoryPalette.text)], content: label)
            if let date {
                svg.element("text", centred(date, at: tx, y: axisTop + 24, size: 12, bold: true) + [
                    ("font-weight", "bold"), ("fill", HistoryPalette.text),
                ], content: date)
            }
        }
    }

    /// A label centred under `x`, or ending at the picture's right edge when it would cross it.
    private func centred(_ text: String, at x: Double, y: Double, size: Double, bold: Bool = false) -> [(String, String)] {
        let half = Self.textWidth(text, size: size, bold: bold) / 2
        if x + half > options.width - 4 {
            return [("x", SVGWriter.number(options.width - 4)), ("y", SVGWriter.number(y)), ("text-anchor", "end")]
        }
        return [("x", SVGWriter.number(x)), ("y", SVGWriter.number(y)), ("text-anchor", "middle")]
    }

    /// The bands' and markers' keys, under the time axis.
    private func legend(_ svg: inout SVGWriter) {
        var items: [(kind: String, color: String, name: String)] = [
            ("rect", HistoryPalette.lowPowerMode(.auto), "Low Power Mode (auto)"),
            ("rect", HistoryPalette.lowPowerMode(.manual), "(manual)"),
            ("rect", HistoryPalette.lowPowerMode(.powerProfilesDaemon), "(power-saver)"),
        ]
        items += ThermalState.allCases.map { ("rect", HistoryPalette.thermal($0), $0.description) }
        items += [
            ("rect", HistoryPalette.lineOnline, "on AC"), ("nodata", "", "no data"),
            ("report", HistoryPalette.entry(.report, "CPU_FATAL"), "report"),
            ("transfer", HistoryPalette.entry(.transfer, "completed"), "transfer"),
        ]
        var lx = plotLeft
        let ly = legendTop
        for item in items {
            switch item.kind {
            case "report":
                svg.element("path", [("d", "M\(SVGWriter.number(lx)),\(SVGWriter.number(ly - 10)) h12 l-6,10 Z"), ("fill", item.color)])
            case "transfer":
                svg.element("circle", [("cx", SVGWriter.number(lx + 6)), ("cy", SVGWriter.number(ly - 4)), ("r", "5"), ("fill", item.color)])
            default:
                svg.element("rect", [
                    ("x", SVGWriter.number(lx)), ("y", SVGWriter.number(ly - 10)), ("width", "12"), ("height", "12"),
                    ("fill", item.kind == "nodata" ? "url(#nodata)" : item.color), ("stroke", HistoryPalette.frame),
                ])
            }
            svg.element("text", [("x", SVGWriter.number(lx + 17)), ("y", SVGWriter.number(ly)), ("fill", HistoryPalette.text)], content: item.name)
            lx += 17 + Self.textWidth(item.name, size: 12) + 14
        }
    }

    /// An estimate of a label's width in DejaVu Sans, enough to decide whether it fits.
    static func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        Double(text.count) * size * (bold ? 0.64 : 0.58)
    }
}
