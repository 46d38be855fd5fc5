import JouleHardware

/// The signals of one of `joule daemon`'s objects, subscribed to, then turned into a stream of
/// events; shared by its clients (`DaemonClient`, `TransfersClient`).
struct DaemonSignals: Sendable {
    let signals: AsyncStream<BusSignalMessage>
    let owners: AsyncStream<BusSignalMessage>

    /// Matches `rule`, and `name` changing owner, on `connection`. Both are in place when this
    /// returns: what the caller reads afterwards cannot miss a signal.
    static func subscribe(on connection: BusConnection, matching rule: String, ownedBy name: String) async throws(BusError) -> DaemonSignals {
        DaemonSignals(
            signals: try await connection.signals(matching: rule),
            owners: try await connection.signals(
                matching: "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(name)'"))
    }

    /// Each signal through `events`. The stream ends when the daemon leaves the bus (its name
    /// loses its owner), when the connection closes, or when the consumer stops iterating.
    /// `holder` (the client owning the connection) is kept alive while the stream runs, since
    /// its connection would otherwise close under it.
    func stream<Event: Sendable>(
        holder: some Sendable & AnyObject, bufferingNewest limit: Int, _ events: @escaping @Sendable (BusSignalMessage) -> [Event]
    ) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(limit))
        let signals = self.signals, owners = self.owners
        let forward = Task {
            for await message in signals {
                for event in events(message) { continuation.yield(event) }
            }
            continuation.finish()
            withExtendedLifetime(holder) {}
        }
        let watchOwner = Task {
            for await message in owners where message.arguments.count == 3 && message.arguments[2].stringValue == "" {
                break
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            forward.cancel()
            watchOwner.cancel()
        }
        return stream
    }
}
