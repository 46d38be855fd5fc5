// Foundation, not FoundationEssentials: CharacterSet.whitespaces trims the header.
import Foundation

/// One request header the client asked for (`--header 'K: V'`), kept in order; a name may
/// repeat.
public struct TransferHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `K: V` (whitespace around the value trimmed); nil without a colon or a name.
    public init?(line: String) {
        // CR or LF would let a value smuggle in a header of its own.
        guard let colon = line.firstIndex(of: ":"), !line.contains(where: \.isNewline) else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        self.name = name
        self.value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    /// `K: V`.
    public var line: String { "\(name): \(value)" }
}
