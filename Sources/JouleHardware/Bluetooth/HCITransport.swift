/// An event from the controller (or a capture) with the time it arrived.
public struct HCIEventRecord: Sendable {
    /// Unix µs; nil when a capture's timestamp is unusable.
    public var timestampMicros: Int64?
    /// The event packet without the H4 type byte: `[code][length][parameters]`. Empty for a
    /// pure clock tick (live transports send these so timers fire between adverts).
    public var bytes: [UInt8]

    public init(timestampMicros: Int64?, bytes: [UInt8]) {
        self.timestampMicros = timestampMicros
        self.bytes = bytes
    }
}

/// The HCI link a scan runs over: the live socket, a capture replay, or the recording test
/// double. Scan control above it is identical for all three.
public protocol HCITransport: Sendable {
    /// Sends a command and waits for its completion; returns the controller's status byte.
    func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8
    /// The next event, or nil at the end (capture finished, transport closed).
    func nextEvent() async throws(HCITransportError) -> HCIEventRecord?
    /// Stops reading and releases the transport (restoring the socket's filter, live).
    func close() async
}
