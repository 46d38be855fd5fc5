import JouleWire
import JouleHardware
import JouleTransferQueue

/// NetworkManager on the system bus, for one thing: whether the network it routes through is
/// metered (`Metered` on `/org/freedesktop/NetworkManager`, NM's verdict on the primary
/// connection), and when that changes.
package struct NetworkManagerClient: Sendable {
    package static let busName = "org.freedesktop.NetworkManager"
    package static let path = "/org/freedesktop/NetworkManager"
    package static let interface = "org.freedesktop.NetworkManager"

    package typealias Metered = NetworkManagerMetered

    /// Something NetworkManager told us.
    package enum Change: Sendable, Hashable {
        /// `Metered` changed (PropertiesChanged).
        case metered(Metered)
        /// NetworkManager appeared on the bus or left it (NameOwnerChanged).
        case ownerChanged(present: Bool)
    }

    private let bus: BusConnection

    package init(bus: BusConnection) { self.bus = bus }

    /// A client when NetworkManager owns its name on `bus` now; nil when it does not (or the
    /// bus fails), so callers fall back to the route and interface kind.
    package static func find(on bus: BusConnection) async -> NetworkManagerClient? {
        guard (try? await owner(on: bus)) != nil else { return nil }
        return NetworkManagerClient(bus: bus)
    }

    /// The `Metered` property. A value outside NMMetered reads as `.unknown`.
    package func metered() async throws(BusError) -> Metered {
        let value = try await bus.property(destination: Self.busName, path: Self.path, interface: Self.interface, name: "Metered")
        guard let raw = value.uint32Value else {
            throw .unexpected(operation: "\(Self.busName) Metered", detail: "not a uint32: \(value)")
        }
        return Metered(rawValue: raw) ?? .unknown
    }

    /// Changes from now on: the matches are in place when this returns, so a `find` or
    /// `metered()` afterwards cannot miss a change in between. PropertiesChanged counts only
    /// from the name's current owner (anyone on the system bus may send one with NM's path).
    /// The stream ends when the connection closes; dropping it removes the matches.
    package static func changes(on bus: BusConnection) async throws(BusError) -> AsyncStream<Change> {
        let owners = try await bus.signals(
            matching: "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(busName)'")
        let properties = try await bus.signals(
            matching: "type='signal',path='\(path)',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',arg0='\(interface)'")
        let current = CurrentOwner()
        current.set(try? await owner(on: bus))

        let (stream, continuation) = AsyncStream.makeStream(of: Change.self)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await signal in owners {
                        guard signal.arguments.count == 3, let newOwner = signal.arguments[2].stringValue else { continue }
                        current.set(newOwner.isEmpty ? nil : newOwner)
                        continuation.yield(.ownerChanged(present: !newOwner.isEmpty))
                    }
                }
                group.addTask {
                    for await signal in properties {
                        guard let metered = Self.metered(in: signal) else { continue }
                        // The NameOwnerChanged explaining a new sender may still be on its way.
                        if current.get() != signal.sender { current.set(try? await owner(on: bus)) }
                        guard current.get() == signal.sender else { continue }
                        continuation.yield(.metered(metered))
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// `Metered` from a PropertiesChanged(s, a{sv}, as) for NM's interface, if it is there.
    static func metered(in signal: BusSignalMessage) -> Metered? {
        guard signal.arguments.count >= 2, signal.arguments[0].stringValue == interface,
            case .array(_, let entries) = signal.arguments[1]
        else { return nil }
        for case .dictEntry(.string("Metered"), let value) in entries {
            guard let raw = value.unwrapped.uint32Value else { return nil }
            return Metered(rawValue: raw) ?? .unknown
        }
        return nil
    }

    /// org.freedesktop.DBus.GetNameOwner: NM's unique name, or nil.
    static func owner(on bus: BusConnection) async throws(BusError) -> String? {
        do {
            let reply = try await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(busName)])
            return reply.first?.stringValue
        } catch {
            if error.remoteName == "org.freedesktop.DBus.Error.NameHasNoOwner" { return nil }
            throw error
        }
    }

    private final class CurrentOwner: Sendable {
        private let owner = Locked<String?>(nil)
        func set(_ name: String?) { owner.withLock { $0 = name } }
        func get() -> String? { owner.withLock { $0 } }
    }
}
