/// One value bound to a statement parameter or read from a column, in sqlite's five storage
/// classes.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `.null` for nil.
    public static func from(_ value: Int64?) -> SQLiteValue { value.map(SQLiteValue.integer) ?? .null }
    public static func from(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
    public static func from(_ value: Double?) -> SQLiteValue { value.map(SQLiteValue.real) ?? .null }
    public static func from(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
    public static func from(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }

    /// The integer, or nil for any other class (a REAL is not silently truncated).
    public var int64: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The number as a double: REAL, or INTEGER widened.
    public var double: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
    public var isNull: Bool { self == .null }
}
