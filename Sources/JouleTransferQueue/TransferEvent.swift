import JouleHardware

/// A signal of `org.joule.Transfers1` about one transfer.
public enum TransferEvent: Sendable, Hashable {
    /// `TransferChanged(id, state)`: every change of state, final ones included.
    case changed(id: String, state: String)
    /// `TransferFinished(id, state, path)`: completed, failed or cancelled; `path` is the
    /// destination of a download or the source of an upload.
    case finished(id: String, state: String, path: String)

    public var id: String {
        switch self {
        case .changed(let id, _), .finished(let id, _, _): id
        }
    }

    /// The state's JSON word (`waiting`, `running`, … `cancelled`).
    public var state: String {
        switch self {
        case .changed(_, let state), .finished(_, let state, _): state
        }
    }

    /// The finished transfer's file (`TransferFinished`); nil for `TransferChanged`.
    public var path: String? { if case .finished(_, _, let path) = self { path } else { nil } }

    /// Whether the transfer will not move again.
    public var isFinal: Bool { !TransferState.liveNames.contains(state) }

    /// The event a signal means; nil for other members or arguments off the contract (one bad
    /// signal must not end a watch).
    package init?(member: String, arguments: [BusValue]) {
        let words = arguments.compactMap(\.stringValue)
        guard words.count == arguments.count else { return nil }
        switch (member, words.count) {
        case ("TransferChanged", 2): self = .changed(id: words[0], state: words[1])
        case ("TransferFinished", 3): self = .finished(id: words[0], state: words[1], path: words[2])
        default: return nil
        }
    }
}
