/// Why a byte decoder rejected its input. Cases carry the field and the byte offset, so a
/// warning can say exactly where a capture or a controller's event went wrong.
public enum DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended before `field`, which needed `needed` bytes at `offset`.
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    /// A field held a value the format does not allow.
    case invalid(field: String, offset: Int, value: Int)
    /// The bytes are well formed but not the format asked for (e.g. not an iBeacon).
    case mismatch(String)

    public var description: String {
        switch self {
        case .truncated(let field, let offset, let needed, let available):
            "\(field) truncated at byte \(offset): needs \(needed) bytes, \(available) left"
        case .invalid(let field, let offset, let value):
            "invalid \(field) \(value) at byte \(offset)"
        case .mismatch(let what): what
        }
    }
}
