/// A charge limit as a user asks for it: `joule battery limit [START-]END | off` and the
/// config's `battery.chargeLimit`. Checked before anything is written, so a bad request never
/// half-applies.
public struct ChargeLimitRequest: Sendable, Hashable, CustomStringConvertible {
    /// Charging resumes below this percentage; nil leaves the firmware's (or, emulated, means
    /// 5 below the end).
    public var start: Int?
    /// Charging stops at this percentage; 100 with no start is "off".
    public var end: Int

    public init(start: Int?, end: Int) throws(ChargeLimitError) {
        if let start, !(0...99).contains(start) { throw .outOfRange(name: "start", value: start, range: "0-99") }
        guard (1...100).contains(end) else { throw .outOfRange(name: "end", value: end, range: "1-100") }
        if let start, start >= end { throw .outOfOrder(start: start, end: end) }
        self.start = start
        self.end = end
    }

    /// No limit: charge to 100 %.
    public static let off = try! ChargeLimitRequest(start: nil, end: 100)

    public var isOff: Bool { start == nil && end == 100 }

    /// `80`, `75-80` or `off`.
    public static func parse(_ text: String) throws(ChargeLimitError) -> ChargeLimitRequest {
        if text == "off" { return .off }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let end = Int(parts[parts.count - 1]) else { throw .unparsable(text) }
        guard parts.count == 2 else { return try ChargeLimitRequest(start: nil, end: end) }
        guard let start = Int(parts[0]) else { throw .unparsable(text) }
        return try ChargeLimitRequest(start: start, end: end)
    }

    public var description: String { isOff ? "off" : (start.map { "\($0)-" } ?? "") + "\(end)" }
}
