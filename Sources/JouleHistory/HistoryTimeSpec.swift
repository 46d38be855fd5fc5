import Foundation

/// A moment as `joule history --since/--until` take it: a span back from a reference time
/// (`24h`, `90m`, `7d`, `2w`, `45s`), Unix seconds (`1773100800`), or a date with an optional
/// time (`2026-03-10`, `2026-03-10T08:30`, `2026-03-10 08:30:15`), in local time unless it
/// ends in `Z` or an offset (`+01:00`).
package enum HistoryTimeSpec: Sendable, Hashable {
    case ago(Double)
    case at(Double)

    package struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
        package var spec: String
        package var description: String {
            "\"\(spec)\" is not a time: give a span back from now (24h, 90m, 7d, 2w, 45s), Unix seconds, "
                + "or a date and time (2026-03-10T08:30, local unless it ends in Z or +HH:MM)"
        }
    }

    package init(spec: String, timeZone: TimeZone = .current) throws(SpecError) {
        let text = spec.trimmingCharacters(in: .whitespaces)
        if let span = Self.span(text) {
            self = .ago(span)
        } else if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(text) {
            self = .at(seconds)
        } else if let date = Self.date(text, timeZone: timeZone) {
            self = .at(date)
        } else {
            throw SpecError(spec: spec)
        }
    }

    /// The moment, taking spans back from `reference`.
    package func resolve(relativeTo reference: Double) -> Double {
        switch self {
        case .ago(let span): reference - span
        case .at(let time): time
        }
    }

    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// `24h` → 86400; nil unless digits (a decimal point allowed) and one unit.
    static func span(_ text: String) -> Double? {
        guard let unit = text.last, let scale = units[unit] else { return nil }
        let number = text.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(number),
              value > 0, value.isFinite
        else { return nil }
        return value * scale
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS]][Z|±HH:MM]`, checked field by field (no 30 February).
    static func date(_ text: String, timeZone: TimeZone) -> Double? {
        var rest = Substring(text)
        var zone = timeZone
        if rest.hasSuffix("Z") {
            zone = TimeZone(secondsFromGMT: 0)!
            rest = rest.dropLast()
        } else if rest.count > 16, let sign = rest.dropLast(5).last, sign == "+" || sign == "-" {
            let offset = rest.suffix(5).split(separator: ":")
            guard offset.count == 2, let hours = Int(offset[0]), let minutes = Int(offset[1]), hours <= 18, minutes < 60,
                  let fixed = TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (hours * 3_600 + minutes * 60))
            else { return nil }
            zone = fixed
            rest = rest.dropLast(6)
        }
        let parts = rest.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let clock = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) } : [0, 0]
        guard day.count == 3, parts[0].count == 10, (2...3).contains(clock.count),
              let year = day[0], let month = day[1], let dayOfMonth = day[2],
              let hour = clock[0], let minute = clock[1], let second = clock.count == 3 ? clock[2] : 0,
              (1...12).contains(month), (1...31).contains(dayOfMonth), (0...23).contains(hour), (0...59).contains(minute),
              (0...59).contains(second)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == dayOfMonth, calendar.component(.month, from: date) == month
        else { return nil }
        return date.timeIntervalSince1970
    }
}
