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

    public func signal(_ member: String, _ arguments: [BusValue]) async {
        let outcome: Result<Void, BusError>
        do throws(BusError) {
            try await bus.emitSignal(path: path, interface: interface, member: member, arguments: arguments)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        note(member, outcome)
    }

    /// PropertiesChanged for `names`, with their values read through the getters.
    public func propertiesChanged(_ names: [String]) async {
        let outcome: Result<Void, BusError>
        do throws(BusError) {
            try await bus.emitPropertiesChanged(path: path, interface: interface, names: names)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        note("PropertiesChanged", outcome)
    }

    private func note(_ member: String, _ outcome: Result<Void, BusError>) {
        let name = "\(interface).\(member)"
        switch outcome {
        case .success:
            if failing.withLock({ $0.remove(member) != nil }) { log("emitting \(name) on \(path) works again") }
        case .failure(let error):
            if failing.withLock({ $0.insert(member).inserted }) {
                log("cannot emit \(name) on \(path), so clients miss this change: \(error) (said once until it works again)")
            }
        }
    }
}
