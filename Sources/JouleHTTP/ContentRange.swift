
/// A `Content-Range` header value (RFC 9110 §14.4): `bytes N-M/L`, `bytes N-M/*` or, on a
/// 416, `bytes */L`. Pure parser; nil for anything else.
public enum ContentRange: Sendable, Equatable {
    /// Bytes `first...last` of a representation of `length` bytes (nil when `*`).
    case range(first: Int64, last: Int64, length: Int64?)
    /// The unsatisfied form of a 416: only the complete length.
    case unsatisfied(length: Int64)

    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let rest = trimmed.dropFirst(6).trimmingSpaces
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let rangePart = rest[..<slash], lengthPart = rest[rest.index(after: slash)...]
        let length: Int64? = lengthPart == "*" ? nil : ContentRange.number(lengthPart)
        if lengthPart != "*" && length == nil { return nil }
        if rangePart == "*" {
            guard let length else { return nil }
            self = .unsatisfied(length: length)
            return
        }
        let bounds = rangePart.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = ContentRange.number(bounds[0]), let last = ContentRange.number(bounds[1]),
              first <= last, length.map({ last < $0 }) ?? true
        else { return nil }
        self = .range(first: first, last: last, length: length)
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }
}
