import Foundation

/// A chart's time scale: ticks at round local times (every 5 minutes … every 12 hours, at
/// local midnights for days and weeks), as many as fit, with clock labels and the date under
/// the first tick and at each midnight.
struct TimeAxis {
    let since: Double
    let until: Double
    let timeZone: TimeZone
    let step: Double
    let ticks: [Double]

    static let steps: [Double] = [
        60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 14_400, 21_600, 43_200,
        86_400, 172_800, 604_800, 1_209_600, 2_419_200, 4_838_400, 7_257_600,
    ]

    init(since: Double, until: Double, timeZone: TimeZone, maxTicks: Int) {
        self.since = since
        self.until = until
        self.timeZone = timeZone
        let span = max(until - since, 1)
        let step = Self.steps.first { span / $0 <= Double(max(2, maxTicks)) } ?? Self.steps[Self.steps.count - 1]
        self.step = step
        var ticks: [Double] = []
        // Round in local wall-clock seconds, so ticks land on local hours and midnights.
        let offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: since)))
        var wall = ((since + offset) / step).rounded(.up) * step
        while ticks.count < 1_000 {
            let guess = wall - offset
            let time = wall - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: guess)))
            if time > until { break }
            if time >= since { ticks.append(time) }
            wall += step
        }
        self.ticks = ticks
    }

    private func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter
    }

    /// Each tick's clock label (`06:00`), or its date for steps of a day or more (`Tue 10 Mar`).
    var labels: [String] {
        let format = formatter(step >= 86_400 ? "EEE d MMM" : "HH:mm")
        return ticks.map { format.string(from: Date(timeIntervalSince1970: $0)) }
    }

    /// Below sub-day ticks: the date at the first tick and at each local midnight, else nil.
    var dateLabels: [String?] {
        guard step < 86_400 else { return ticks.map { _ in nil } }
        let format = formatter("EEE d MMM"), clock = formatter("HH:mm")
        return ticks.enumerated().map { index, tick in
            let date = Date(timeIntervalSince1970: tick)
            return index == 0 || clock.string(from: date) == "00:00" ? format.string(from: date) : nil
        }
    }

    /// `Tue 10 Mar 2026 00:00` for a chart's subtitle.
    func describe(_ time: Double) -> String {
        formatter("EEE d MMM yyyy HH:mm").string(from: Date(timeIntervalSince1970: time))
    }

    /// The zone's name as the subtitle shows it: `UTC`, `CET`, or `GMT+01:00`.
    var zoneName: String { Self.zoneName(timeZone, at: until) }

    static func zoneName(_ zone: TimeZone, at time: Double) -> String {
        let date = Date(timeIntervalSince1970: time)
        if zone.secondsFromGMT(for: date) == 0, zone.identifier.contains("UTC") || zone.identifier == "GMT" { return "UTC" }
        return zone.abbreviation(for: date) ?? zone.identifier
    }
}
