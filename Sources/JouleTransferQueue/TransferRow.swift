import JouleHardware

/// How a `Transfer` maps onto a row of the `transfers` table, both ways, column by column.
enum TransferRow {
    static let columns = [
        "id", "owner_uid", "url", "method", "headers", "destination", "upload_source",
        "discretionary", "unmetered_only", "require_ac", "priority", "batch", "sha256", "on_complete",
        "session_identifier", "created_at", "begin_after", "deadline", "strong_etag", "last_modified",
        "total_length", "durable_bytes", "attempts_without_progress", "last_error", "state",
        "waiting_for", "state_time", "failure_reason",
    ]

    static let columnList = columns.joined(separator: ", ")
    static let insert = "INSERT INTO transfers (\(columnList)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    /// Every column but the id, then the id for the WHERE.
    static let update = "UPDATE transfers SET \(columns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
    static let select = "SELECT \(columnList) FROM transfers"
    /// High priority first, then oldest first.
    static let order = "ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'normal' THEN 1 ELSE 2 END, created_at, id"

    /// The values in `columns` order.
    static func values(_ t: Transfer) throws(TransferStoreError) -> [SQLiteValue] {
        // The table's CHECKs refuse these too; here they get a sentence instead of sqlite's.
        if t.method.isUpload {
            guard t.uploadSource != nil, t.destination == nil else {
                throw .invalid("a \(t.method.rawValue) uploads a file: it needs an upload source and no destination")
            }
        } else if t.destination == nil || t.uploadSource != nil {
            throw .invalid("a GET downloads to a destination: it needs one and no upload source")
        }
        guard t.durableBytes >= 0, t.attemptsWithoutProgress >= 0, (t.validators.totalLength ?? 0) >= 0 else {
            throw .invalid("byte counts and attempts cannot be negative")
        }
        var stateTime: Double?
        var failure: String?
        switch t.state {
        case .retrying(let next): stateTime = next
        case .suspended(let until): stateTime = until
        case .failed(let reason): failure = reason
        default: break
        }
        return [
            .text(t.id), .integer(Int64(t.ownerUID)), .text(t.url), .text(t.method.rawValue),
            .text(try encode(t.headers)), .from(t.destination), .from(t.uploadSource),
            .from(t.requirements.discretionary), .from(t.requirements.unmeteredOnly), .from(t.requirements.requireAC),
            .text(t.priority.rawValue), .from(t.batch), .from(t.sha256), .from(t.onComplete),
            .from(t.sessionIdentifier), .real(t.createdAt), .from(t.beginAfter), .real(t.deadline),
            .from(t.validators.strongETag), .from(t.validators.lastModified), .from(t.validators.totalLength),
            .integer(t.durableBytes), .integer(Int64(t.attemptsWithoutProgress)), .from(t.lastError),
            .text(t.state.name), .text(t.state.waitingFor.map(\.rawValue).joined(separator: " ")), .from(stateTime), .from(failure),
        ]
    }

    /// Headers as `name:value` lines: names hold no colon or whitespace, values no line break.
    static func encode(_ headers: [TransferHeader]) throws(TransferStoreError) -> String {
        for header in headers {
            if header.name.isEmpty || header.name.contains(where: { $0 == ":" || $0.isWhitespace })
                || header.value.contains(where: \.isNewline)
            {
                throw .invalid("header \"\(header.name)\" cannot be sent as written")
            }
        }
        return headers.map { "\($0.name):\($0.value)" }.joined(separator: "\n")
    }

    static func decodeHeaders(_ text: String) -> [TransferHeader] {
        text.split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return TransferHeader(name: String(line[..<colon]), value: String(line[colon...].dropFirst()))
        }
    }

    static func decode(_ row: SQLiteRow) throws(TransferStoreError) -> Transfer {
        let id = row["id"].text ?? "?"
        func fail(_ column: String) -> TransferStoreError { .corrupt(id: id, detail: "column \(column) holds \(row[column])") }
        func text(_ column: String) throws(TransferStoreError) -> String {
            guard let value = row[column].text else { throw fail(column) }
            return value
        }
        func integer(_ column: String) throws(TransferStoreError) -> Int64 {
            guard let value = row[column].int64 else { throw fail(column) }
            return value
        }
        func real(_ column: String) throws(TransferStoreError) -> Double {
            guard let value = row[column].double else { throw fail(column) }
            return value
        }
        guard let method = TransferMethod(rawValue: try text("method")) else { throw fail("method") }
        guard let priority = TransferPriority(rawValue: try text("priority")) else { throw fail("priority") }
        guard let owner = UInt32(exactly: try integer("owner_uid")) else { throw fail("owner_uid") }
        let stateTime = row["state_time"].double
        let state: TransferState
        switch try text("state") {
        case "waiting":
            var unmet: [TransferCondition] = []
            for word in (row["waiting_for"].text ?? "").split(separator: " ") {
                guard let condition = TransferCondition(rawValue: String(word)) else { throw fail("waiting_for") }
                unmet.append(condition)
            }
            state = .waiting(unmet: unmet)
        case "running": state = .running
        case "suspended": state = .suspended(until: stateTime)
        case "retrying":
            guard let stateTime else { throw fail("state_time") }
            state = .retrying(next: stateTime)
        case "completed": state = .completed
        case "failed": state = .failed(reason: row["failure_reason"].text ?? "")
        case "cancelled": state = .cancelled
        default: throw fail("state")
        }
        return Transfer(
            id: try text("id"), ownerUID: owner, url: try text("url"), method: method,
            headers: decodeHeaders(row["headers"].text ?? ""), destination: row["destination"].text,
            uploadSource: row["upload_source"].text,
            requirements: TransferRequirements(
                discretionary: try integer("discretionary") != 0, unmeteredOnly: try integer("unmetered_only") != 0,
                requireAC: try integer("require_ac") != 0),
            priority: priority, batch: row["batch"].text, sha256: row["sha256"].text, onComplete: row["on_complete"].text,
            sessionIdentifier: row["session_identifier"].text, createdAt: try real("created_at"),
            beginAfter: row["begin_after"].double, deadline: try real("deadline"),
            validators: TransferValidators(
                strongETag: row["strong_etag"].text, lastModified: row["last_modified"].text,
                totalLength: row["total_length"].int64),
            durableBytes: try integer("durable_bytes"),
            attemptsWithoutProgress: Int(try integer("attempts_without_progress")),
            lastError: row["last_error"].text, state: state)
    }
}
