import Foundation
import JouleHardware
import JouleEnergy

/// The history in figures: what `joule history` prints without `--json`, and the table of the
/// HTML page. Durations count each row for the time it stands for (`HistoryInterval`), so a
/// gap counts for nothing.
package struct HistorySummary: Sendable {
    package struct Hottest: Sendable, Hashable {
        package var sensor: String
        package var label: String?
        package var celsius: Double
        package var time: Double
    }

    package var since: Double
    package var until: Double
    package var rows: Int
    /// Seconds some row stands for, and the seconds of gaps.
    package var covered: Double
    package var missing: Double
    package var batteryFirst: Double?
    package var batteryLast: Double?
    package var batteryLowest: (percentage: Double, time: Double)?
    package var batteryHighest: Double?
    /// Measured energy (Wh) over the time power was known, its mean and peak.
    package var measuredWh: Double?
    package var meanPowerW: Double?
    package var peakPower: (watts: Double, time: Double)?
    package var powerSources: [String]
    package var onBattery: Double
    package var onAC: Double
    package var lowPowerMode: [(source: LowPowerModeSource, seconds: Double)]
    package var thermal: [(state: ThermalState, seconds: Double)]
    package var hottest: [Hottest]
    package var entries: [HistoryEntry]
    /// Oldest first.
    package var sleeps: [SleepRecord]

    package init(_ timeline: HistoryTimeline) {
        let intervals = HistoryInterval.intervals(timeline.samples, since: timeline.since, until: timeline.until)
        let gaps = HistoryInterval.gaps(intervals, since: timeline.since, until: timeline.until)
        since = timeline.since
        until = timeline.until
        rows = timeline.samples.count
        covered = intervals.reduce(0) { $0 + ($1.end - $1.start) }
        missing = gaps.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        let percentages = timeline.samples.compactMap { sample in sample.percentage.map { ($0, sample.timestamp) } }
        batteryFirst = percentages.first?.0
        batteryLast = percentages.last?.0
        batteryLowest = percentages.min { $0.0 < $1.0 }.map { ($0.0, $0.1) }
        batteryHighest = percentages.map(\.0).max()
        var joules = 0.0, measured = 0.0
        var onBattery = 0.0, onAC = 0.0
        var lowPower: [LowPowerModeSource: Double] = [:]
        var thermal: [ThermalState: Double] = [:]
        for interval in intervals {
            let seconds = interval.end - interval.start, sample = interval.sample
            if let watts = sample.powerW {
                joules += watts * seconds
                measured += seconds
            }
            if sample.lineOnline == true { onAC += seconds } else if sample.lineOnline == false { onBattery += seconds }
            if sample.lowPowerMode { lowPower[sample.lowPowerModeSource, default: 0] += seconds }
            thermal[sample.thermalState, default: 0] += seconds
        }
        measuredWh = measured > 0 ? joules / 3_600 : nil
        meanPowerW = measured > 0 ? joules / measured : nil
        peakPower = timeline.samples.compactMap { sample in sample.powerW.map { ($0, sample.timestamp) } }
            .max { $0.0 < $1.0 }.map { ($0.0, $0.1) }
        powerSources = Set(timeline.samples.compactMap(\.powerSource)).sorted()
        self.onBattery = onBattery
        self.onAC = onAC
        lowPowerMode = LowPowerModeSource.allCases.compactMap { source in lowPower[source].map { (source, $0) } }
        self.thermal = ThermalState.allCases.compactMap { state in thermal[state].map { (state, $0) } }
        hottest = timeline.sensors.compactMap { sensor in
            let readings = timeline.samples.compactMap { sample in sample.celsius(sensor.sensor).map { ($0, sample.timestamp) } }
            return readings.max { $0.0 < $1.0 }.map { Hottest(sensor: sensor.sensor, label: sensor.label, celsius: $0.0, time: $0.1) }
        }
        entries = timeline.entries
        sleeps = timeline.sleeps
    }

    /// Label and value pairs, in the order printed: the CLI's lines and the page's table.
    package func figures(timeZone: TimeZone) -> [(String, String)] {
        let clock = Self.formatter("HH:mm", timeZone), day = Self.formatter("yyyy-MM-dd HH:mm", timeZone)
        let sameDay = until - since <= 86_400
        func at(_ time: Double) -> String { (sameDay ? clock : day).string(from: Date(timeIntervalSince1970: time)) }
        var figures: [(String, String)] = [
            ("Time", "\(day.string(from: Date(timeIntervalSince1970: since))) – \(day.string(from: Date(timeIntervalSince1970: until))) (\(TimeAxis.zoneName(timeZone, at: until)))"),
            ("Rows", "\(rows), covering \(Self.duration(covered))" + (missing > 0 ? "; no data for \(Self.duration(missing))" : "")),
        ]
        if let first = batteryFirst, let last = batteryLast, let lowest = batteryLowest, let highest = batteryHighest {
            figures.append(("Battery", "\(Self.percent(first)) → \(Self.percent(last)), lowest \(Self.percent(lowest.percentage)) (\(at(lowest.time))), highest \(Self.percent(highest))"))
        } else {
            figures.append(("Battery", "none"))
        }
        if let measuredWh, let meanPowerW, let peak = peakPower {
            figures.append(("Power", "mean \(Self.number(meanPowerW)) W, peak \(Self.number(peak.watts)) W (\(at(peak.time))), \(Self.number(measuredWh)) Wh measured (\(powerSources.joined(separator: ", ")))"))
        } else {
            figures.append(("Power", "not measured"))
        }
        if onBattery + onAC > 0 { figures.append(("Line power", "on battery \(Self.duration(onBattery)), on AC \(Self.duration(onAC))")) }
        let lowPowerTotal = lowPowerMode.reduce(0) { $0 + $1.seconds }
        figures.append(("Low Power Mode", lowPowerTotal == 0 ? "off throughout" : "on for \(Self.duration(lowPowerTotal)) ("
            + lowPowerMode.map { "\($0.source.rawValue) \(Self.duration($0.seconds))" }.joined(separator: ", ") + ")"))
        figures.append(("Thermal state", thermal.map { "\($0.state) \(Self.duration($0.seconds))" }.joined(separator: ", ")))
        if !hottest.isEmpty {
            figures.append(("Hottest", hottest.map { "\($0.label ?? $0.sensor) \(Self.number($0.celsius)) °C (\(at($0.time)))" }.joined(separator: ", ")))
        }
        let reports = entries.filter { $0.kind == .report }.count, transfers = entries.count - reports
        figures.append(("Markers", "\(reports) report\(reports == 1 ? "" : "s"), \(transfers) transfer\(transfers == 1 ? "" : "s")"))
        // Only when there were some: a history without sleeps reads as it did before issue 36.
        if !sleeps.isEmpty {
            let fast = sleeps.filter(\.isFlagged).count
            figures.append(("Sleeps", "\(sleeps.count)" + (fast > 0
                ? ", \(fast) drain\(fast == 1 ? "s" : "") fast (over \(Self.number(SleepRecord.flagPercentPerHour)) %/h)" : "")))
        }
        return figures
    }

    /// The sleeps as rows: when each began, and its `SleepRecord.summary` (which says when it
    /// drained fast and what woke it).
    package func sleepRows(timeZone: TimeZone) -> [(time: String, summary: String)] {
        let format = Self.formatter(until - since <= 86_400 ? "HH:mm:ss" : "yyyy-MM-dd HH:mm", timeZone)
        return sleeps.map { (format.string(from: Date(timeIntervalSince1970: $0.start)), $0.summary) }
    }

    /// The markers as rows: time, what, details.
    package func markerRows(timeZone: TimeZone) -> [(time: String, what: String, detail: String)] {
        let format = Self.formatter(until - since <= 86_400 ? "HH:mm:ss" : "yyyy-MM-dd HH:mm", timeZone)
        return entries.map { entry in
            var detail = entry.detail ?? ""
            if let bytes = entry.bytes, entry.kind == .transfer {
                detail = ([Self.bytes(bytes)] + (detail.isEmpty ? [] : [detail])).joined(separator: " · ")
            }
            return (format.string(from: Date(timeIntervalSince1970: entry.timestamp)), entry.label, detail)
        }
    }

    /// The summary as `joule history` prints it.
    package func text(timeZone: TimeZone) -> String {
        let figures = figures(timeZone: timeZone)
        let width = (figures.map(\.0.count).max() ?? 0) + 2
        var lines: [String] = []
        for (label, value) in figures {
            lines.append((label + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value)
            // Each list under its own figure.
            if label == "Markers" {
                for row in markerRows(timeZone: timeZone) {
                    lines.append("  \(row.time)  \(row.what)" + (row.detail.isEmpty ? "" : "  (\(row.detail))"))
                }
            } else if label == "Sleeps" {
                for row in sleepRows(timeZone: timeZone) { lines.append("  \(row.time)  \(row.summary)") }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func formatter(_ format: String, _ timeZone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter
    }

    /// Rows read back from the store can hold any double (a damaged file, another writer), so
    /// the figures below never trap converting one to an integer: beyond this magnitude (about
    /// 285 million years in seconds) a figure prints as the double it is, and NaN as `unknown`.
    static let integerLimit = 9e15

    /// `2 h 05 min`, `35 min`, `40 s`, `3 d 4 h`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "unknown" }
        guard abs(seconds) < integerLimit else { return "\(seconds) s" }
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        let minutes = total / 60
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 48 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        return hours % 24 == 0 ? "\(hours / 24) d" : "\(hours / 24) d \(hours % 24) h"
    }

    /// One decimal, none when whole: `9.8`, `171`.
    static func number(_ value: Double) -> String {
        guard !value.isNaN else { return "unknown" }
        let rounded = (value * 10).rounded() / 10
        guard abs(rounded) < integerLimit else { return String(value) }
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }

    static func percent(_ value: Double) -> String {
        guard !value.isNaN else { return "unknown %" }
        return abs(value) < integerLimit ? "\(Int64(value.rounded())) %" : "\(value) %"
    }

    /// `3.9 GB`, `512 kB`, `12 B` (decimal units).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count), unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(number(value)) \(units[unit])"
    }
}
