import JouleHardware
/// A `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date (IMF-fixdate, and
/// the obsolete RFC 850 and asctime forms). Pure: `delay(_:now:)` turns it into a span from
/// `now` (Unix seconds); a date in the past is zero. Clamping is `RetryPolicy`'s job.
public enum RetryAfter {
    public static func delay(_ value: String, now: Double) -> Duration? {
        let text = value.trimmingSpaces
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // Digits too many for Int64 are "forever"; the policy clamps it to retryAfterMax.
            return Int64(text).map { .seconds($0) } ?? .seconds(Int64(1) << 40)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .seconds(clamping: max(0, date - now))
    }
}
