/// The open connection, handed to a `SQLiteDatabase.transaction` or `withConnection` body while
/// the database's lock is held. Valid only inside that body, on that thread: it is not
/// Sendable, and keeping it past the body would run statements outside the lock.
public final class SQLiteConnection {
    let gateway: SQLiteGateway

    init(gateway: SQLiteGateway) { self.gateway = gateway }

    /// Runs one statement (prepared once per SQL text and reused) with `arguments` bound to its
    /// `?` parameters in order; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        _ = try gateway.run(sql, arguments)
        return gateway.changes
    }

    /// Runs one statement and returns its rows.
    public func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        try gateway.run(sql, arguments)
    }

    /// Runs several `;`-separated statements without arguments (schema changes).
    public func executeScript(_ sql: String) throws(SQLiteError) { try gateway.executeScript(sql) }

    /// Whether a transaction is open.
    public var isInTransaction: Bool { gateway.inTransaction }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
