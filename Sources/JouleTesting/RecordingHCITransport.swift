import JouleHardware

/// The test double: records every command, answers with scripted statuses, and delivers
/// events fed to it as bytes.
public actor RecordingHCITransport: HCITransport {
    public private(set) var commands: [HCICommand] = []
    /// Status to answer per opcode; success otherwise.
    public var statuses: [UInt16: UInt8] = [:]
    private var events: [HCIEventRecord] = []
    public private(set) var closed = false

    public init(statuses: [UInt16: UInt8] = [:]) { self.statuses = statuses }

    public func setStatus(_ status: UInt8, for opcode: UInt16) { statuses[opcode] = status }

    public func feed(_ event: HCIEventRecord) { events.append(event) }

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        commands.append(command)
        return statuses[command.opcode] ?? HCIStatus.success
    }

    /// Fed events in order, then nil.
    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? {
        guard !closed, !events.isEmpty else { return nil }
        return events.removeFirst()
    }

    public func close() async { closed = true }

    public func clearCommands() { commands.removeAll() }
}
