import JouleWire
import JouleHardware
import JouleTransferQueue

/// Every event of a `TransfersClient` or `BackgroundTransferSession` stream as it arrives, read
/// by one task (a stream has one consumer), for tests that look for one event, then another.
public final class TransferEventLog: Sendable {
    /// Shared with the reading task, which must not hold the log itself.
    private final class Events: Sendable {
        let list = Locked<[TransferEvent]>([])
    }

    private let events = Events()
    private let reader: Task<Void, Never>

    public init(_ stream: AsyncStream<TransferEvent>) {
        let events = self.events
        reader = Task { for await event in stream { events.list.withLock { $0.append(event) } } }
    }

    deinit { reader.cancel() }

    public var all: [TransferEvent] { events.list.withLock { $0 } }

    /// Waits (at most 60 s, a bound against hanging, not a measure of speed) for an event
    /// matching `predicate`; nil when none came.
    public func first(where predicate: (TransferEvent) -> Bool) async throws -> TransferEvent? {
        for _ in 0..<600 {
            if let event = all.first(where: predicate) { return event }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
