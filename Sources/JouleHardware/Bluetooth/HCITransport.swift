/// An event from the controller (or a capture) with the time it arrived.
public struct HCIEventRecord: Sendable {
    /// Unix µs; nil when a capture's timestamp is unusable.
    public var timestampMicros: Int64?
    /// The event packet without the H4 type byte: `[code][length][parameters]`. Empty for a
    /// pure clock tick (live transports send these so timers fire between adverts). A slice:
    /// a replay's batch of events shares one buffer instead of allocating one per event.
    public var bytes: ArraySlice<UInt8>
    /// The record's number in a capture (replay only), for warnings that point into the file.
    public var captureIndex: Int?

    public init(timestampMicros: Int64?, bytes: [UInt8], captureIndex: Int? = nil) {
        self.init(timestampMicros: timestampMicros, slice: bytes[...], captureIndex: captureIndex)
    }

    public init(timestampMicros: Int64?, slice: ArraySlice<UInt8>, captureIndex: Int? = nil) {
        self.timestampMicros = timestampMicros
        bytes = slice
        self.captureIndex = captureIndex
    }
}

/// The HCI link a scan runs over: the live socket, a capture replay, or the recording test
/// double. Scan control above it is identical for all three.
public protocol HCITransport: Sendable {
    /// Sends a command and waits for its completion; returns the controller's status byte.
    func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8
    /// The next event, or nil at the end (capture finished, transport closed, stop requested).
    func nextEvent() async throws(HCITransportError) -> HCIEventRecord?
    /// Up to `limit` events that are ready (at least one, waiting if none is); empty at the end.
    /// Replays hand over events in batches so a large capture costs one call per batch.
    func nextEvents(limit: Int) async throws(HCITransportError) -> [HCIEventRecord]
    /// Ends the event stream (a signal, a cancelled task) while commands still work, so the
    /// caller can turn scanning off before `close()`. Safe from any thread, at any time.
    func stopEvents()
    /// Stops reading and releases the transport (restoring the socket's filter, live).
    func close() async
}

extension HCITransport {
    public func nextEvents(limit: Int) async throws(HCITransportError) -> [HCIEventRecord] {
        guard let record = try await nextEvent() else { return [] }
        return [record]
    }
}
