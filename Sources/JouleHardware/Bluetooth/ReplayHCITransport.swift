import Synchronization

/// Replays the controller-to-host events of a btsnoop capture as a transport. Commands the
/// scan controller sends are recorded and succeed, so scan control runs exactly as live.
public actor ReplayHCITransport: HCITransport {
    private let reader: BTSnoopReader
    private nonisolated let stopped = Atomic<Bool>(false)
    public private(set) var commands: [HCICommand] = []

    public init(path: String) throws(HCITransportError) {
        do throws(BTSnoopError) { reader = try BTSnoopReader(path: path) } catch {
            throw .capture("\(error)")
        }
    }

    public var captureWarning: BTSnoopWarning? { reader.warning }

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        commands.append(command)
        return HCIStatus.success
    }

    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? {
        guard !stopped.load(ordering: .relaxed) else { return nil }
        while let record = reader.next() {
            guard record.type == .event, record.received else { continue }
            return HCIEventRecord(
                timestampMicros: record.timestampMicros, bytes: Array(record.payload), captureIndex: record.index)
        }
        return nil
    }

    public func nextEvents(limit: Int) async throws(HCITransportError) -> [HCIEventRecord] {
        var batch: [HCIEventRecord] = []
        batch.reserveCapacity(Swift.max(limit, 1))
        while batch.count < Swift.max(limit, 1), let record = try await nextEvent() { batch.append(record) }
        return batch
    }

    public nonisolated func stopEvents() { stopped.store(true, ordering: .relaxed) }

    public func close() async {}
}
