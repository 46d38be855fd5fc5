/// How long the history keeps what: every row for `fullResolution` (30 days), then one row per
/// `bucket` (an hour) until `keep` (a year), then nothing. Transfer markers are kept as long
/// as rows. The daemon applies it at most once per `interval` (an hour).
///
/// An hour's row is the mean of its rows for the numbers (percentage, rates, power, each
/// sensor's temperature; nil when none was known), the most frequent charge state and power
/// source, line power and Low Power Mode as held by at least half the rows (with the source
/// and reason of the last row agreeing), and the worst thermal state: an hour that reached
/// `serious` stays visible as one.
package struct HistoryRetention: Sendable, Hashable {
    package var fullResolution: Double
    package var keep: Double
    package var bucket: Double
    package var interval: Double

    package init(
        fullResolution: Double = 30 * 86_400, keep: Double = 365 * 86_400, bucket: Double = 3_600, interval: Double = 3_600
    ) {
        self.fullResolution = fullResolution
        self.keep = keep
        self.bucket = bucket
        self.interval = interval
    }

    /// Readings before this time are aggregated: whole buckets only, so a bucket is never
    /// split between a row of its own and readings.
    package func aggregateBefore(now: Double) -> Double {
        ((now - fullResolution) / bucket).rounded(.down) * bucket
    }

    /// Rows and markers before this time are deleted.
    package func deleteBefore(now: Double) -> Double { now - keep }

    /// One row per bucket for `samples` (any order), oldest first.
    package func aggregate(_ samples: [HistorySample]) -> [HistorySample] {
        let buckets = Dictionary(grouping: samples) { ($0.timestamp / bucket).rounded(.down) * bucket }
        return buckets.keys.sorted().map { start in
            Self.aggregate(buckets[start]!.sorted { $0.timestamp < $1.timestamp }, start: start, span: bucket)
        }
    }

    /// One row standing for `rows` (oldest first, not empty).
    static func aggregate(_ rows: [HistorySample], start: Double, span: Double) -> HistorySample {
        let last = rows[rows.count - 1]
        let lowPowerMode = majority(rows.map(\.lowPowerMode)) ?? last.lowPowerMode
        let agreeing = rows.last { $0.lowPowerMode == lowPowerMode } ?? last
        var sensors: [String] = []
        var labels: [String: String?] = [:]
        for reading in rows.flatMap(\.temperatures) {
            if labels[reading.sensor] == nil { sensors.append(reading.sensor) }
            labels[reading.sensor] = .some(reading.label)
        }
        let temperatures = sensors.map { sensor in
            HistoryTemperature(sensor: sensor, label: labels[sensor] ?? nil, celsius: mean(rows.map { $0.celsius(sensor) }))
        }
        return HistorySample(
            timestamp: start, trigger: .hourly, span: span, percentage: mean(rows.map(\.percentage)),
            chargeState: mostFrequent(rows.map(\.chargeState)), energyRateW: mean(rows.map(\.energyRateW)),
            powerW: mean(rows.map(\.powerW)), powerSource: mostFrequent(rows.map(\.powerSource)),
            lineOnline: majority(rows.compactMap(\.lineOnline)), lowPowerMode: lowPowerMode,
            lowPowerModeSource: agreeing.lowPowerModeSource, lowPowerModeReason: agreeing.lowPowerModeReason,
            thermalState: rows.map(\.thermalState).max() ?? last.thermalState, temperatures: temperatures)
    }

    static func mean(_ values: [Double?]) -> Double? {
        let known = values.compactMap { $0 }
        return known.isEmpty ? nil : known.reduce(0, +) / Double(known.count)
    }

    /// True when at least half are true; nil for none.
    static func majority(_ values: [Bool]) -> Bool? {
        values.isEmpty ? nil : values.filter { $0 }.count * 2 >= values.count
    }

    /// The most frequent known value; a tie goes to the one seen last.
    static func mostFrequent<T: Hashable>(_ values: [T?]) -> T? {
        var counts: [T: Int] = [:]
        var lastSeen: [T: Int] = [:]
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            counts[value, default: 0] += 1
            lastSeen[value] = index
        }
        return counts.keys.max { (counts[$0]!, lastSeen[$0]!) < (counts[$1]!, lastSeen[$1]!) }
    }
}
