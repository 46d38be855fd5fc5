import Foundation

/// The one way text output shows a time of day: 24-hour local time, `13:09:10`, whatever the
/// locale (a 12-hour `1:09:10 PM` in one command and `13:09:10` in another reads as two
/// clocks). JSON carries ISO-8601 UTC or epoch seconds instead.
enum ClockTime {
    private static let style = Date.VerbatimFormatStyle(
        format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
        timeZone: .current, calendar: Calendar(identifier: .gregorian))

    private static let dateStyle = Date.VerbatimFormatStyle(
        format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
        timeZone: .current, calendar: Calendar(identifier: .gregorian))

    static func text(_ timestamp: Double) -> String {
        Date(timeIntervalSince1970: timestamp).formatted(style)
    }

    /// A date and time of day for lists that span days: `2026-11-29 13:09:10`, local.
    static func dateTime(_ timestamp: Double) -> String {
        Date(timeIntervalSince1970: timestamp).formatted(dateStyle)
    }
}
