import JouleWire

/// Emits one exported object's signals and says when that fails: a client that misses a
/// change cannot know it did, so the journal must. Said once per signal until one of that
/// signal succeeds again (then that is said too), so a bus in trouble does not flood the log.
public final class BusSignalEmitter: Sendable {
    public let bus: BusConnection
    public let path: String
    public let interface: String
    private let log: @Sendable (String) -> Void
    /// Members whose last emission failed.
    private let failing = Locked<Set<String>>([])

    public init(bus: BusConnection, path: String, interface: String, log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.path = path
        self.interface = interface
        self.log = log
    }

    /// `member` to every listener, or only to `destination` (a unique name).
    public func signal(_ member: String, _ arguments: [BusValue], to destination: String? = nil) async {
        await emit(member) { () throws(BusError) in
            try await bus.emitSignal(path: path, interface: interface, member: member, arguments: arguments, destination: destination)
        }
    }

    /// PropertiesChanged for `names`, with their values read through the getters.
    public func propertiesChanged(_ names: [String]) async {
        await emit("PropertiesChanged") { () throws(BusError) in
            try await bus.emitPropertiesChanged(path: path, interface: interface, names: names)
        }
    }

    /// Runs `send` and logs `member`'s failure, or its recovery, as the type says.
    private func emit(_ member: String, _ send: () async throws(BusError) -> Void) async {
        let name = "\(interface).\(member)"
        do throws(BusError) {
            try await send()
            if failing.withLock({ $0.remove(member) != nil }) { log("emitting \(name) on \(path) works again") }
        } catch {
            if failing.withLock({ $0.insert(member).inserted }) {
                log("cannot emit \(name) on \(path), so clients miss this change: \(error) (said once until it works again)")
            }
        }
    }
}
