/// One result row: its column names (as the statement named them) and values, in order.
public struct SQLiteRow: Sendable, Hashable {
    public let columns: [String]
    public let values: [SQLiteValue]

    public init(columns: [String], values: [SQLiteValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value at a column index.
    public subscript(index: Int) -> SQLiteValue { values[index] }

    /// The value of the first column called `name`; `.null` when there is none.
    public subscript(name: String) -> SQLiteValue {
        columns.firstIndex(of: name).map { values[$0] } ?? .null
    }
}
