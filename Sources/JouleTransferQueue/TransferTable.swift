import JouleEnergy

/// How `joule transfer list` and `show` print transfers for people: a table with one row per
/// transfer, and one `key: value` line per field. Scripts use `--json`.
public enum TransferTable {
    /// The header and one row per transfer, columns aligned, the URL last and unpadded; REASON
    /// is the JSON's `reason` (the conditions waited for, or the error). Ids
    /// are cut to the shortest length (at least 8) at which they are still unique, which
    /// `show`, `cancel` and `wait` accept. `terminal`: draw progress bars.
    public static func render(_ transfers: [TransferSnapshot], terminal: Bool) -> [String] {
        guard !transfers.isEmpty else { return ["No transfers."] }
        let length = uniqueLength(transfers.map(\.id))
        let rows = [["ID", "STATE", "PROGRESS", "REASON", "URL"]] + transfers.map { transfer in
            [
                String(transfer.id.prefix(length)), transfer.state.name,
                progress(bytes: transfer.bytes, total: transfer.totalBytes, terminal: terminal),
                transfer.reason ?? "-", transfer.url,
            ]
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column] + String(repeating: " ", count: widths[column] - row[column].count)
            }.joined(separator: "  ")
        }
    }

    /// `[#####.....] 52%` in a terminal when the total is known; otherwise the bytes, as
    /// `DONE/TOTAL` or `DONE` (plain numbers for a pipe).
    public static func progress(bytes: Int64, total: Int64?, terminal: Bool, width: Int = 10) -> String {
        guard let total else { return "\(bytes)" }
        guard terminal else { return "\(bytes)/\(total)" }
        let fraction = total > 0 ? min(1, max(0, Double(bytes) / Double(total))) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        let percent = Int((fraction * 100).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(percent)%"
    }

    /// The shortest prefix length, at least `minimum`, at which every id differs.
    public static func uniqueLength(_ ids: [String], minimum: Int = 8) -> Int {
        let longest = ids.map(\.count).max() ?? 0
        var length = min(minimum, longest)
        while length < longest && Set(ids.map { $0.prefix(length) }).count < Set(ids).count { length += 1 }
        return length
    }

    /// `joule transfer show`: each field of the JSON object on a line as `key: value`, in the
    /// object's order; times as `clock` words them (the CLI's local time; UTC by default),
    /// absent values as `-`.
    public static func details(_ transfer: TransferSnapshot, clock: (Double) -> String = utcText) -> [String] {
        func time(_ seconds: Double?) -> String {
            guard let seconds, seconds.isFinite else { return "-" }
            // Beyond what a date can say (a daemon's stored garbage): the number, never a trap.
            guard abs(seconds) < 1e11 else { return "\(seconds)" }
            return clock(seconds)
        }
        let fields: [(String, String)] = [
            ("id", transfer.id),
            ("url", transfer.url),
            ("destination", transfer.destination ?? "-"),
            ("state", transfer.state.name),
            ("waitingFor", transfer.waitingFor.isEmpty ? "-" : transfer.waitingFor.map(\.rawValue).joined(separator: ", ")),
            ("discretionary", transfer.discretionary ? "true" : "false"),
            ("priority", transfer.priority.rawValue),
            ("batch", transfer.batch ?? "-"),
            ("bytes", "\(transfer.bytes)"),
            ("totalBytes", transfer.totalBytes.map { "\($0)" } ?? "-"),
            ("attempts", "\(transfer.attempts)"),
            ("nextAttempt", time(transfer.nextAttempt)),
            ("deadline", time(transfer.deadline)),
            ("error", transfer.error ?? "-"),
            ("reason", transfer.reason ?? "-"),
        ]
        return fields.map { "\($0.0): \($0.1)" }
    }

    /// ISO-8601 UTC to the millisecond: `2026-12-06T03:58:48.706Z`.
    public static func utcText(_ seconds: Double) -> String { UTCTime.text(Int64((seconds * 1000).rounded()) * 1000) }
}
