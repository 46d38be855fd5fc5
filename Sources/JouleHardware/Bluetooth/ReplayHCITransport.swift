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
        try await nextEvents(limit: 1).first
    }

    /// Up to `limit` events, their bytes copied into one buffer that the records share.
    public func nextEvents(limit: Int) async throws(HCITransportError) -> [HCIEventRecord] {
        guard !stopped.load(ordering: .relaxed) else { return [] }
        var storage: [UInt8] = []
        storage.reserveCapacity(Swift.max(limit, 1) * 64)
        var found: [(time: Int64?, range: Range<Int>, index: Int)] = []
        found.reserveCapacity(Swift.max(limit, 1))
        while found.count < Swift.max(limit, 1), let record = reader.next() {
            guard record.type == .event, record.received else { continue }
            let start = storage.count
            storage.append(contentsOf: record.payload)
            found.append((record.timestampMicros, start..<storage.count, record.index))
        }
        return found.map { HCIEventRecord(timestampMicros: $0.time, slice: storage[$0.range], captureIndex: $0.index) }
    }

    public nonisolated func stopEvents() { stopped.store(true, ordering: .relaxed) }

    public func close() async {}
}
