import JouleWire
import JouleHardware

/// power-profiles-daemon, or any other owner of its bus names (tlp-pd, tuned-ppd), on the
/// system bus: the active profile, profile holds, and what changes.
package struct PowerProfilesClient: Sendable {
    /// A name such a service owns, with its object; the interface name equals the bus name.
    package struct Service: Sendable, Hashable {
        package var busName: String
        package var path: String

        package init(busName: String, path: String) {
            self.busName = busName
            self.path = path
        }
    }

    /// Tried in this order: ppd ≥ 0.20 owns both names, older ppd and its look-alikes only the
    /// legacy one.
    package static let services = [
        Service(busName: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles"),
        Service(busName: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles"),
    ]

    package let busName: String
    package let path: String
    package var interface: String { busName }
    private let bus: BusConnection

    package init(bus: BusConnection, service: Service) {
        self.bus = bus
        busName = service.busName
        path = service.path
    }

    /// The first of `services` whose name has an owner now, or nil (none, or the bus fails).
    package static func find(on bus: BusConnection) async -> PowerProfilesClient? {
        for service in services {
            if (try? await owner(of: service.busName, on: bus)) != nil { return PowerProfilesClient(bus: bus, service: service) }
        }
        return nil
    }

    package func activeProfile() async throws(BusError) -> String {
        let value = try await bus.property(destination: busName, path: path, interface: interface, name: "ActiveProfile")
        guard let profile = value.stringValue else {
            throw .unexpected(operation: "\(busName) ActiveProfile", detail: "not a string: \(value)")
        }
        return profile
    }

    /// HoldProfile: the service keeps `profile` until `release(cookie:)`, until the user picks
    /// a profile (then `ProfileReleased`), or until this connection closes.
    package func hold(profile: String, reason: String, applicationID: String) async throws(BusError) -> UInt32 {
        let reply = try await bus.call(
            destination: busName, path: path, interface: interface, member: "HoldProfile",
            arguments: [.string(profile), .string(reason), .string(applicationID)])
        guard reply.count == 1, let cookie = reply[0].uint32Value else {
            throw .unexpected(operation: "\(busName) HoldProfile", detail: "reply \(reply)")
        }
        return cookie
    }

    package func release(cookie: UInt32) async throws(BusError) {
        _ = try await bus.call(
            destination: busName, path: path, interface: interface, member: "ReleaseProfile",
            arguments: [.uint32(cookie)])
    }

    /// What every candidate service says from now on: the match rules are in place when this
    /// returns, so a `find` afterwards cannot miss an owner appearing in between.
    ///
    /// Everything one object sends comes through one match on its path, so it keeps its order:
    /// ppd releases holds (`ProfileReleased`) before it announces the user's profile. Property
    /// and release signals count only from the name's current owner (anyone on the system bus
    /// may send a signal with that path), and, when one connection owns both names (ppd ≥ 0.20
    /// announces every change on both objects), only from the first name in `services`.
    /// The stream ends when the connection closes; dropping it removes the matches.
    package static func changes(on bus: BusConnection) async throws(BusError) -> AsyncStream<PowerProfilesChange> {
        // One stream for both names and both objects: the order in which the bus sent them is
        // what decides whether a signal came from the name's owner of the time.
        let signals = try await bus.signals(
            matchingAny: services.flatMap { service in
                [
                    "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                        + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service.busName)'",
                    "type='signal',path='\(service.path)'",
                ]
            })
        // Read after the matches exist, so that a change in between shows up in both.
        let owners = OwnerTable()
        await owners.refresh(on: bus)

        let (stream, continuation) = AsyncStream.makeStream(of: PowerProfilesChange.self)
        let task = Task {
            for await signal in signals {
                guard let change = await Self.change(from: signal, owners: owners, bus: bus) else { continue }
                continuation.yield(change)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private static func change(from signal: BusSignalMessage, owners: OwnerTable, bus: BusConnection) async -> PowerProfilesChange? {
        if signal.sender == "org.freedesktop.DBus", signal.member == "NameOwnerChanged" {
            guard signal.arguments.count == 3, let name = signal.arguments[0].stringValue,
                let newOwner = signal.arguments[2].stringValue
            else { return nil }
            owners.set(name, owner: newOwner.isEmpty ? nil : newOwner)
            return .ownerChanged(busName: name, present: !newOwner.isEmpty)
        } else {
            guard let service = services.first(where: { $0.path == signal.path }) else { return nil }
            let change: PowerProfilesChange
            switch (signal.interface, signal.member) {
            case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                guard signal.arguments.count >= 2, signal.arguments[0].stringValue == service.busName,
                    case .array(_, let entries) = signal.arguments[1],
                    let profile = entries.lazy.compactMap({ entry -> String? in
                        guard case .dictEntry(.string("ActiveProfile"), let value) = entry else { return nil }
                        return value.unwrapped.stringValue
                    }).first
                else { return nil }
                change = .activeProfile(profile)
            case (service.busName, "ProfileReleased"):
                guard let cookie = signal.arguments.first?.uint32Value else { return nil }
                change = .profileReleased(cookie: cookie)
            default:
                return nil
            }
            return await owners.speaksFor(service, sender: signal.sender, on: bus) ? change : nil
        }
    }

    /// org.freedesktop.DBus.GetNameOwner: the unique name owning `name`, or nil.
    static func owner(of name: String, on bus: BusConnection) async throws(BusError) -> String? {
        do {
            let reply = try await bus.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", arguments: [.string(name)])
            return reply.first?.stringValue
        } catch {
            if error.remoteName == "org.freedesktop.DBus.Error.NameHasNoOwner" { return nil }
            throw error
        }
    }

    /// Which unique name owns each service name, kept current by NameOwnerChanged and asked
    /// again whenever a signal's sender disagrees with it.
    private final class OwnerTable: Sendable {
        private let owners = Locked<[String: String]>([:])

        func set(_ name: String, owner: String?) { owners.withLock { $0[name] = owner } }

        func refresh(on bus: BusConnection) async {
            for service in PowerProfilesClient.services {
                set(service.busName, owner: try? await PowerProfilesClient.owner(of: service.busName, on: bus))
            }
        }

        /// Whether `sender` owns `service`'s name and no earlier service's, asking the bus again
        /// before saying no: the NameOwnerChanged that explains a sender may still be on its way.
        func speaksFor(_ service: Service, sender: String, on bus: BusConnection) async -> Bool {
            if decide(service, sender: sender) { return true }
            await refresh(on: bus)
            return decide(service, sender: sender)
        }

        private func decide(_ service: Service, sender: String) -> Bool {
            owners.withLock { owners in
                guard owners[service.busName] == sender else { return false }
                let earlier = PowerProfilesClient.services.prefix { $0 != service }
                return !earlier.contains { owners[$0.busName] == sender }
            }
        }
    }
}
