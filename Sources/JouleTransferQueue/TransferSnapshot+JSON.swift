import JouleWire
import JouleHardware

extension TransferSnapshot {
    /// Reads one object of `Get` (`Transfer.json`); a bad key is named in the error, as
    /// `state` or `waitingFor[1]` (`[3].bytes` in a list). Every key of the contract is required with
    /// its type, null where the contract allows it; keys it does not know are ignored, so a
    /// newer daemon may add some.
    public init(json text: String) throws(JSONDecodingError) {
        try self.init(json: try JSONObjectReader.parse(text), key: "")
    }

    public init(json value: JSONValue) throws(JSONDecodingError) {
        try self.init(json: value, key: "")
    }

    /// Reads `List`'s (or `ListSession`'s) array, oldest first.
    public static func list(json text: String) throws(JSONDecodingError) -> [TransferSnapshot] {
        guard case .array(let items) = try JSONObjectReader.parse(text) else {
            throw JSONDecodingError(key: "", message: "expected an array of transfers")
        }
        var transfers: [TransferSnapshot] = []
        for (index, item) in items.enumerated() { transfers.append(try TransferSnapshot(json: item, key: "[\(index)]")) }
        return transfers
    }

    private init(json value: JSONValue, key prefix: String) throws(JSONDecodingError) {
        guard case .object(let object) = value else {
            throw JSONDecodingError(key: prefix, message: "expected a transfer object, got \(JSONObjectReader.clip(value))")
        }
        let reader = JSONObjectReader(object: object, prefix: prefix.isEmpty ? "" : prefix + ".")
        id = try reader.required("id", "a string", \.stringValue)
        url = try reader.required("url", "a string", \.stringValue)
        destination = try reader.optional("destination", "a string", \.stringValue)
        discretionary = try reader.required("discretionary", "true or false", \.boolValue)
        priority = try reader.required("priority", "high, normal or low") { $0.stringValue.flatMap(TransferPriority.init(rawValue:)) }
        batch = try reader.optional("batch", "a string", \.stringValue)
        bytes = try reader.required("bytes", "a count of bytes", JSONObjectReader.count)
        totalBytes = try reader.optional("totalBytes", "a count of bytes", JSONObjectReader.count)
        attempts = try reader.required("attempts", "a count", { $0.intValue.flatMap { $0 >= 0 ? $0 : nil } })
        deadline = try reader.required("deadline", "Unix seconds", \.doubleValue)
        error = try reader.optional("error", "a string", \.stringValue)
        let nextAttempt = try reader.optional("nextAttempt", "Unix seconds", \.doubleValue)
        let words = try reader.required("waitingFor", "an array", \.arrayValue)
        var unmet: [TransferCondition] = []
        for (index, word) in words.enumerated() {
            guard let condition = word.stringValue.flatMap(TransferCondition.init(rawValue:)) else {
                throw reader.failure("waitingFor[\(index)]", expected: TransferCondition.allCases.map(\.rawValue).joined(separator: ", "), got: word)
            }
            unmet.append(condition)
        }
        let name = try reader.required("state", TransferState.names.joined(separator: ", ")) { value in
            value.stringValue.flatMap { TransferState.names.contains($0) ? $0 : nil }
        }
        switch name {
        case "waiting": state = .waiting(unmet: unmet)
        case "running": state = .running
        case "suspended": state = .suspended(until: nextAttempt)
        case "retrying":
            guard let nextAttempt else {
                throw JSONDecodingError(key: reader.prefix + "nextAttempt", message: "a retrying transfer needs the time of its next attempt")
            }
            state = .retrying(next: nextAttempt)
        case "completed": state = .completed
        case "failed": state = .failed(reason: error ?? "")
        default: state = .cancelled
        }
    }
}
