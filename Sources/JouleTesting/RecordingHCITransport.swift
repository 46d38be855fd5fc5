import JouleHardware
import Synchronization

/// The test double: records every command, answers with scripted statuses, and delivers
/// events fed to it as bytes.
public actor RecordingHCITransport: HCITransport {
    public private(set) var commands: [HCICommand] = []
    /// Status to answer per opcode; success otherwise.
    public var statuses: [UInt16: UInt8] = [:]
    private var events: [HCIEventRecord] = []
    private nonisolated let stopped = Atomic<Bool>(false)
    public private(set) var closed = false

    public init(statuses: [UInt16: UInt8] = [:]) { self.statuses = statuses }

    public func feed(_ event: HCIEventRecord) { events.append(event) }

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        commands.append(command)
        return statuses[command.opcode] ?? HCIStatus.success
    }

    /// Fed events in order, then nil.
    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? {
        guard !closed, !stopped.load(ordering: .relaxed), !events.isEmpty else { return nil }
        return events.removeFirst()
    }

    public nonisolated func stopEvents() { stopped.store(true, ordering: .relaxed) }

    public func close() async { closed = true }
}
