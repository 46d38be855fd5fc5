import Foundation
import JouleHardware

/// `joule history --html`: one self-contained page (no script, no fetched style or font, so it
/// works offline and from a mail attachment): the chart's SVG inline, the summary, the markers,
/// the sleeps when there were any, and an hour-by-hour table (day by day beyond two days).
package struct HistoryPage: Sendable {
    package let chart: HistoryChart

    package init(chart: HistoryChart) { self.chart = chart }

    package func html() -> String {
        let timeline = chart.timeline, zone = chart.options.timeZone
        let summary = HistorySummary(timeline)
        var page = SVGWriter()
        page.raw("<!DOCTYPE html>")
        page.open("html", [("lang", "en")])
        page.open("head")
        page.element("meta", [("charset", "utf-8")])
        page.element("meta", [("name", "viewport"), ("content", "width=device-width, initial-scale=1")])
        page.element("title", content: chart.options.title)
        page.raw("<style>\(Self.style)</style>")
        page.close("head")
        page.open("body")
        page.element("h1", content: "joule history")
        page.open("figure")
        page.raw(chart.svgElement())
        page.close("figure")

        page.element("h2", content: "Summary")
        page.open("table", [("class", "figures")])
        for (label, value) in summary.figures(timeZone: zone) {
            page.raw("<tr><th>\(SVGWriter.escape(label))</th><td>\(SVGWriter.escape(value))</td></tr>")
        }
        page.close("table")

        page.element("h2", content: "Markers")
        let markers = summary.markerRows(timeZone: zone)
        if markers.isEmpty {
            page.element("p", content: "No resource reports or finished transfers in this time.")
        } else {
            page.open("table")
            page.raw("<tr><th>Time</th><th>What</th><th>Details</th></tr>")
            for row in markers {
                page.raw("<tr><td>\(SVGWriter.escape(row.time))</td><td>\(SVGWriter.escape(row.what))</td><td>\(SVGWriter.escape(row.detail))</td></tr>")
            }
            page.close("table")
        }

        let sleeps = summary.sleepRows(timeZone: zone)
        if !sleeps.isEmpty {
            page.element("h2", content: "Sleeps")
            page.open("table")
            page.raw("<tr><th>Asleep from</th><th>Sleep</th></tr>")
            for row in sleeps {
                page.raw("<tr><td>\(SVGWriter.escape(row.time))</td><td>\(SVGWriter.escape(row.summary))</td></tr>")
            }
            page.close("table")
        }

        let daily = timeline.until - timeline.since > 2 * 86_400
        page.element("h2", content: daily ? "Day by day" : "Hour by hour")
        periodTable(&page, timeline: timeline, bucket: daily ? 86_400 : 3_600, zone: zone)
        page.element("p", [("class", "note")], content: "Averages over the rows of each period; the thermal state is the worst reached. Unknown values are shown as –. Written by joule history from \(timeline.source == .daemon ? "joule daemon" : timeline.database ?? "the history file").")
        page.close("body")
        page.close("html")
        return page.text
    }

    private func periodTable(_ page: inout SVGWriter, timeline: HistoryTimeline, bucket: Double, zone: TimeZone) {
        // Buckets start at local midnights and hours: shift into local time and back.
        let offset = Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: timeline.since)))
        let shifted = timeline.samples.map { sample -> HistorySample in
            var copy = sample
            copy.timestamp += offset
            return copy
        }
        let periods = HistoryRetention(bucket: bucket).aggregate(shifted)
        guard !periods.isEmpty else {
            page.element("p", content: "No rows in this time.")
            return
        }
        let format = HistorySummary.formatter(bucket >= 86_400 ? "EEE yyyy-MM-dd" : "EEE HH:mm", zone)
        let sensors = timeline.sensors
        page.open("table")
        var head = "<tr><th>\(bucket >= 86_400 ? "Day" : "Hour")</th><th>Battery</th><th>State</th><th>Power</th><th>Battery rate</th><th>Low Power Mode</th><th>Thermal</th>"
        for sensor in sensors { head += "<th>\(SVGWriter.escape(sensor.label ?? sensor.sensor))</th>" }
        page.raw(head + "</tr>")
        for period in periods {
            let start = period.timestamp - offset
            var cells = [
                format.string(from: Date(timeIntervalSince1970: start)),
                period.percentage.map { HistorySummary.percent($0) } ?? "–",
                period.chargeState?.rawValue ?? "–",
                period.powerW.map { "\(HistorySummary.number($0)) W" } ?? "–",
                period.energyRateW.map { "\(HistorySummary.number($0)) W" } ?? "–",
                period.lowPowerMode ? "on (\(period.lowPowerModeSource.rawValue))" : "off",
                period.thermalState.description,
            ]
            for sensor in sensors { cells.append(period.celsius(sensor.sensor).map { "\(HistorySummary.number($0)) °C" } ?? "–") }
            page.raw("<tr>" + cells.map { "<td>\(SVGWriter.escape($0))</td>" }.joined() + "</tr>")
        }
        page.close("table")
    }

    static let style = """
        body{font-family:"DejaVu Sans",Cantarell,Helvetica,Arial,sans-serif;color:#241f31;margin:24px auto;max-width:1240px;padding:0 12px}\
        h1{font-size:22px}h2{font-size:17px;margin-top:28px}figure{margin:0;overflow-x:auto}svg{max-width:100%;height:auto}\
        table{border-collapse:collapse;font-size:13px}th,td{padding:4px 10px;border-bottom:1px solid #deddda;text-align:left;vertical-align:top}\
        table.figures th{white-space:nowrap}.note{color:#5e5c64;font-size:12px}
        """
}
