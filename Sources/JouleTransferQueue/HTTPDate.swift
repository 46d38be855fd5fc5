import JouleHardware

/// HTTP-date parsing without Foundation: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
/// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Unix seconds, or nil when the text is none of the three forms.
    public static func parse(_ text: String) -> Double? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?, month: Int?, year: Int?, clock: [Int]?
        if words.count == 4, words[3] == "GMT", words[1].contains("-") {  // RFC 850
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3 else { return nil }
            day = Int(parts[0]); month = monthIndex(parts[1]); clock = timeOfDay(words[2])
            year = Int(parts[2]).map { $0 < 70 ? 2000 + $0 : ($0 < 100 ? 1900 + $0 : $0) }
        } else if words.count == 6, words[5] == "GMT" {  // IMF-fixdate: day-name, dd mon yyyy
            day = Int(words[1]); month = monthIndex(words[2]); year = Int(words[3]); clock = timeOfDay(words[4])
        } else if words.count == 5 {  // asctime
            month = monthIndex(words[1]); day = Int(words[2]); clock = timeOfDay(words[3]); year = Int(words[4])
        }
        guard let day, let month, let year, let clock, (1...31).contains(day), clock[0] < 24, clock[1] < 60, clock[2] <= 60
        else { return nil }
        let days = Int(CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        return Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    private static func monthIndex(_ word: String) -> Int? {
        months.firstIndex(of: word.lowercased()).map { $0 + 1 }
    }

    private static func timeOfDay(_ word: String) -> [Int]? {
        let parts = word.split(separator: ":").compactMap { Int($0) }
        return parts.count == 3 ? parts : nil
    }
}
