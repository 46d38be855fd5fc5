import JouleHardware

/// UTC text from Unix time, for every output that prints an instant in UTC (beacon records,
/// `joule transfer list/show`): one formatter, so they cannot drift apart.
public enum UTCTime {
    /// `2023-11-14T22:13:20.25Z` from Unix µs: UTC, the fraction without trailing zeros.
    public static func text(_ micros: Int64) -> String {
        let seconds = micros / 1_000_000
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let date = CivilCalendar.date(days: days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let text = "\(date.year)-\(two(date.month))-\(two(date.day))T"
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        return text + fractionText(micros % 1_000_000) + "Z"
    }

    /// `.25` for 250 000 µs: the fraction of a second without trailing zeros, empty for none
    /// (or a negative remainder).
    public static func fractionText(_ micros: Int64) -> String {
        guard micros > 0 else { return "" }
        let digits = String(micros)
        var text = "." + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
