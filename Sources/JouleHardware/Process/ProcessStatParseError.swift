/// Why a /proc/PID/stat (or task stat) line could not be decoded.
public enum ProcessStatParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No bytes at all.
    case empty
    /// No `(` before a `)`: the command name cannot be delimited.
    case missingCommand
    /// The PID before `(` is not a positive decimal.
    case badPID
    /// The line ends before field `field` (1-based, as proc(5) numbers them).
    case truncated(field: Int)
    /// Field `field` is not the decimal number proc(5) promises, or overflows.
    case badNumber(field: Int)

    public var description: String {
        switch self {
        case .empty: "empty stat line"
        case .missingCommand: "no parenthesised command name"
        case .badPID: "PID is not a positive number"
        case .truncated(let field): "line ends before field \(field)"
        case .badNumber(let field): "field \(field) is not a valid number"
        }
    }
}
