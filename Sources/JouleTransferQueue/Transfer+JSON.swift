import JouleWire
import JouleHardware

extension Transfer {
    /// The binding object of `joule transfer add/show/list --json` and the D-Bus `Get`/`List`:
    /// `{"id","url","destination","state","waitingFor","discretionary","priority","batch",
    /// "bytes","totalBytes","attempts","nextAttempt","deadline","error","reason"}`, in that
    /// order. Unknown numbers and absent strings are null; times are Unix seconds. `error` is the
    /// failure's reason when failed, else the last attempt's error; `reason` (added by issue 32,
    /// so last) is `TransferState.reason(error:)`.
    public var json: JSONValue {
        let error: String?
        if case .failed(let reason) = state { error = reason } else { error = lastError }
        return .object([
            "id": .string(id),
            "url": .string(url),
            "destination": .from(destination),
            "state": .string(state.name),
            "waitingFor": .array(state.waitingFor.map { .string($0.rawValue) }),
            "discretionary": .bool(requirements.discretionary),
            "priority": .string(priority.rawValue),
            "batch": .from(batch),
            "bytes": .int(Int(durableBytes)),
            "totalBytes": .from(validators.totalLength.map { Int($0) }),
            "attempts": .int(attemptsWithoutProgress),
            "nextAttempt": .from(nextAttempt, places: 3),
            "deadline": .from(deadline, places: 3),
            "error": .from(error),
            "reason": .from(state.reason(error: error)),
        ])
    }

    /// `List`'s answer: an array of transfer objects.
    public static func json(_ transfers: [Transfer]) -> JSONValue { .array(transfers.map(\.json)) }
}
