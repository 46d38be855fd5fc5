import Foundation
import JouleHardware
import JouleEnergy

/// The history as one SVG picture, in the manner of GNOME Power Statistics but on one time
/// axis: the battery's charge (coloured by charge state), the measured power beside the
/// batteries' own rate, every temperature sensor, and bands for Low Power Mode (by source),
/// the thermal state, line power, the charge limit's hold and sleeps (a drain that was too
/// fast in a warmer colour), with report and transfer markers. Time with no rows is
/// hatched as "no data" and no line crosses it. Where everything goes is worked out first
/// (`HistoryChartLayout`: no label overlaps another or leaves the picture); the SVG is written
/// from that. Pure: the same timeline and options give the same text.
package struct HistoryChart: Sendable {
    package struct Options: Sendable {
        package var width: Double
        package var title: String
        /// Ticks and labels are in this zone's local time.
        package var timeZone: TimeZone

        package init(width: Double = 1200, title: String = "Battery, power and temperature", timeZone: TimeZone = .current) {
            self.width = width
            self.title = title
            self.timeZone = timeZone
        }
    }

    package let timeline: HistoryTimeline
    package let options: Options
    /// The rows drawn: as recorded, or averaged into buckets when there are more rows than
    /// pixels (a month or a year), which draws the same shape in a fraction of the text.
    let drawnSamples: [HistorySample]
    let intervals: [HistoryInterval]
    let layout: HistoryChartLayout

    package init(timeline: HistoryTimeline, options: Options = Options()) {
        self.timeline = timeline
        self.options = options
        let plotWidth = max(options.width - HistoryChartLayout.left - HistoryChartLayout.right, 1)
        var samples = timeline.samples
        if Double(samples.count) > plotWidth * 2 {
            let bucket = ((timeline.until - timeline.since) / plotWidth).rounded(.up)
            samples = HistoryRetention(bucket: max(bucket, 60)).aggregate(samples)
        }
        drawnSamples = samples
        intervals = HistoryInterval.intervals(samples, since: timeline.since, until: timeline.until)
        let axis = TimeAxis(since: timeline.since, until: timeline.until, timeZone: options.timeZone, maxTicks: Int(exactly: (plotWidth / 84).rounded(.down)) ?? 12)
        layout = HistoryChartLayout(
            timeline: timeline, width: options.width, title: options.title, axis: axis, samples: samples, intervals: intervals,
            gaps: HistoryInterval.gaps(intervals, since: timeline.since, until: timeline.until))
    }

    var battery: HistoryChartLayout.Panel { layout.battery }
    var height: Double { layout.height }
    func bandTop(_ index: Int) -> Double { layout.bandTop(index) }
    func x(_ time: Double) -> Double { layout.x(time) }

    // MARK: Drawing

    /// A standalone SVG document.
    package func svg() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svgElement()
    }

    /// The `<svg>` element alone, for inlining in HTML.
    package func svgElement() -> String {
        var svg = SVGWriter()
        let w = SVGWriter.number(layout.width), h = SVGWriter.number(layout.height)
        svg.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("width", w), ("height", h), ("viewBox", "0 0 \(w) \(h)"),
            ("font-family", Self.font), ("font-size", "12"), ("role", "img"), ("aria-label", options.title),
        ])
        svg.element("title", content: options.title)
        patterns(&svg)
        svg.element("rect", [("width", w), ("height", h), ("fill", HistoryPalette.background)])
        for panel in [layout.battery, layout.power, layout.temperature] { frame(&svg, panel) }
        batteryPanel(&svg)
        powerPanel(&svg)
        temperaturePanel(&svg)
        bands(&svg)
        noData(&svg)
        bandRuns(&svg, overGaps: true)
        markers(&svg)
        for tick in layout.ticks {
            let tx = SVGWriter.number(x(tick))
            svg.element("path", [("d", "M\(tx),\(SVGWriter.number(layout.bandsBottom)) V\(SVGWriter.number(layout.axisTop - 4))"), ("stroke", HistoryPalette.frame)])
        }
        for key in layout.keys { legendKey(&svg, key) }
        for label in layout.labels { text(&svg, label) }
        svg.close("svg")
        return svg.text
    }

    /// "No data" hatching, and Low Power Mode's hatched fills (white stripes over the source's colour).
    private func patterns(_ svg: inout SVGWriter) {
        svg.open("defs")
        svg.open("pattern", [
            ("id", "nodata"), ("patternUnits", "userSpaceOnUse"), ("width", "8"), ("height", "8"),
            ("patternTransform", "rotate(45)"),
        ])
        svg.element("rect", [("width", "8"), ("height", "8"), ("fill", HistoryPalette.bandOff)])
        svg.element("line", [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "8"), ("stroke", HistoryPalette.noData), ("stroke-width", "2")])
        svg.close("pattern")
        for source in LowPowerModeSource.allCases {
            svg.open("pattern", [
                ("id", HistoryPalette.lowPowerModePattern(source)), ("patternUnits", "userSpaceOnUse"), ("width", "6"), ("height", "6"),
                ("patternTransform", "rotate(-45)"),
            ])
            svg.element("rect", [("width", "6"), ("height", "6"), ("fill", HistoryPalette.lowPowerMode(source))])
            svg.element("line", [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "6"), ("stroke", "#ffffff"), ("stroke-opacity", "0.35"), ("stroke-width", "1.5")])
            svg.close("pattern")
        }
        svg.close("defs")
    }

    private func text(_ svg: inout SVGWriter, _ label: HistoryChartLayout.Label) {
        var attributes = [("x", SVGWriter.number(label.x)), ("y", SVGWriter.number(label.baseline))]
        if label.anchor != .start { attributes.append(("text-anchor", label.anchor.rawValue)) }
        if label.size != 12 { attributes.append(("font-size", SVGWriter.number(label.size))) }
        if label.bold { attributes.append(("font-weight", "bold")) }
        if label.italic { attributes.append(("font-style", "italic")) }
        attributes.append(("fill", label.color))
        if label.role == .noData {
            // A halo keeps it readable on the hatching.
            attributes += [("stroke", HistoryPalette.background), ("stroke-width", "3"), ("stroke-linejoin", "round"), ("paint-order", "stroke")]
        }
        svg.element("text", attributes, content: label.text)
    }

    private func legendKey(_ svg: inout SVGWriter, _ key: HistoryChartLayout.LegendKey) {
        let box = key.box, n = SVGWriter.number
        switch key.key {
        case .line(let color, let dash):
            var attributes = [
                ("x1", n(box.x)), ("y1", n(box.y + 6)), ("x2", n(box.maxX)), ("y2", n(box.y + 6)), ("stroke", color), ("stroke-width", "3"),
            ]
            if let dash { attributes.append(("stroke-dasharray", dash)) }
            svg.element("line", attributes)
        case .swatch(let fill):
            svg.element("rect", [
                ("x", n(box.x)), ("y", n(box.y)), ("width", n(box.width)), ("height", n(box.height)), ("fill", fill), ("stroke", HistoryPalette.frame),
            ])
        case .report(let color):
            svg.element("path", [("d", "M\(n(box.x)),\(n(box.y + 1)) h12 l-6,10 Z"), ("fill", color)])
        case .transfer(let color):
            svg.element("circle", [("cx", n(box.x + 6)), ("cy", n(box.y + 6)), ("r", "5"), ("fill", color)])
        }
    }

    /// A panel's frame, vertical gridlines at the time ticks, horizontal ones at its scale's ticks.
    private func frame(_ svg: inout SVGWriter, _ panel: HistoryChartLayout.Panel) {
        let n = SVGWriter.number
        svg.element("rect", [
            ("x", n(layout.plotLeft)), ("y", n(panel.top)), ("width", n(layout.plotWidth)), ("height", n(panel.height)),
            ("fill", "none"), ("stroke", HistoryPalette.frame),
        ])
        var lines = layout.ticks.map { "M\(n(x($0))),\(n(panel.top)) V\(n(panel.bottom))" }
        for tick in panel.scale.ticks where tick > panel.scale.low && tick < panel.scale.high {
            lines.append("M\(n(layout.plotLeft)),\(n(panel.y(tick))) H\(n(layout.plotRight))")
        }
        if !lines.isEmpty {
            svg.element("path", [("d", lines.joined(separator: " ")), ("stroke", HistoryPalette.grid), ("fill", "none")])
        }
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

    private func batteryPanel(_ svg: inout SVGWriter) {
        let panel = layout.battery
        let runs = runs(drawnSamples, intervals, value: \.percentage) { HistoryPalette.charge($0.chargeState) }
        for (color, points) in runs where points.count > 1 {
            let mapped = points.map { (x($0.0), panel.y($0.1)) }
            let area = SVGWriter.path(mapped)
                + " L\(SVGWriter.number(mapped[mapped.count - 1].0)),\(SVGWriter.number(panel.bottom))"
                + " L\(SVGWriter.number(mapped[0].0)),\(SVGWriter.number(panel.bottom)) Z"
            svg.element("path", [("d", area), ("fill", color), ("fill-opacity", "0.14"), ("stroke", "none")])
        }
        for (color, points) in runs { polyline(&svg, points, y: panel.y, color: color) }
    }

    private func powerPanel(_ svg: inout SVGWriter) {
        let panel = layout.power
        for run in runs(drawnSamples, intervals, value: \.energyRateW, key: { _ in 0 }) {
            polyline(&svg, run.points, y: panel.y, color: HistoryPalette.batteryRate, width: 1.5, dash: "5,3")
        }
        for run in runs(drawnSamples, intervals, value: \.powerW, key: { _ in 0 }) {
            polyline(&svg, run.points, y: panel.y, color: HistoryPalette.measuredPower)
        }
    }

    private func temperaturePanel(_ svg: inout SVGWriter) {
        let panel = layout.temperature
        for (index, sensor) in timeline.sensors.enumerated() {
            let style = HistoryPalette.sensor(index)
            for run in runs(drawnSamples, intervals, value: { $0.celsius(sensor.sensor) }, key: { _ in 0 }) {
                polyline(&svg, run.points, y: panel.y, color: style.color, width: 1.6, dash: style.dash)
            }
        }
    }

    /// The bands' grounds and their runs (labels are the layout's).
    private func bands(_ svg: inout SVGWriter) {
        let n = SVGWriter.number
        for index in HistoryChartLayout.bandNames.indices {
            svg.element("rect", [
                ("x", n(layout.plotLeft)), ("y", n(bandTop(index))), ("width", n(layout.plotWidth)),
                ("height", n(HistoryChartLayout.bandHeight)), ("fill", HistoryPalette.bandOff),
            ])
        }
        bandRuns(&svg, overGaps: false)
    }

    /// The runs drawn under the "no data" hatching, or (sleeps) over it.
    private func bandRuns(_ svg: inout SVGWriter, overGaps: Bool) {
        let n = SVGWriter.number
        for run in layout.bandRuns where run.overGaps == overGaps {
            svg.element("rect", [
                ("x", n(run.x)), ("y", n(bandTop(run.row))), ("width", n(run.width)),
                ("height", n(HistoryChartLayout.bandHeight)), ("fill", run.fill),
            ])
        }
    }

    /// Hatches every stretch without rows across the panels and bands.
    private func noData(_ svg: inout SVGWriter) {
        let areas = [layout.battery, layout.power, layout.temperature].map { ($0.top, $0.height) }
            + [(layout.bandsTop, layout.bandsBottom - layout.bandsTop)]
        for gap in HistoryInterval.gaps(intervals, since: timeline.since, until: timeline.until) {
            let x0 = x(gap.lowerBound), width = x(gap.upperBound) - x0
            guard width >= 0.5 else { continue }
            for (top, height) in areas {
                svg.element("rect", [
                    ("x", SVGWriter.number(x0)), ("y", SVGWriter.number(top)), ("width", SVGWriter.number(width)),
                    ("height", SVGWriter.number(height)), ("fill", "url(#nodata)"),
                ])
            }
        }
    }

    /// Reports and transfers: a symbol at the lane's bottom and a dashed line down each panel
    /// and the bands, not across the titles and legends between them (their labels are the layout's).
    private func markers(_ svg: inout SVGWriter) {
        let n = SVGWriter.number, bottom = layout.laneBottom
        let spans = [layout.battery, layout.power, layout.temperature].map { ($0.top, $0.bottom) } + [(layout.bandsTop, layout.bandsBottom)]
        for marker in layout.markers {
            let mx = marker.x
            svg.element("path", [
                ("d", spans.map { "M\(n(mx)),\(n($0.0)) V\(n($0.1))" }.joined(separator: " ")),
                ("stroke", marker.color), ("stroke-dasharray", "4,3"), ("stroke-width", "1.2"), ("fill", "none"),
            ])
            switch marker.kind {
            case .report:
                svg.element("path", [("d", "M\(n(mx - 6)),\(n(bottom - 10)) L\(n(mx + 6)),\(n(bottom - 10)) L\(n(mx)),\(n(bottom)) Z"), ("fill", marker.color)])
            case .transfer:
                svg.element("circle", [
                    ("cx", n(mx)), ("cy", n(bottom - 5)), ("r", "5"), ("fill", marker.color), ("stroke", "#ffffff"), ("stroke-width", "1"),
                ])
            }
        }
    }

    static let font = "DejaVu Sans, Cantarell, Helvetica, Arial, sans-serif"
}
