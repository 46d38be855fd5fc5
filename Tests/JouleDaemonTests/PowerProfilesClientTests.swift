import Foundation
import JouleWire
import JouleHardware
import JouleDaemon
import JouleTesting
import Testing

/// Every change a stream delivers, collected by a task of its own so that a test can wait for
/// one with a deadline instead of hanging on `next()`.
final class ChangeRecorder: Sendable {
    private final class Log: Sendable { let changes = Locked<[PowerProfilesChange]>([]) }
    private let log: Log
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<PowerProfilesChange>) {
        let log = Log()
        self.log = log
        task = Task { for await change in stream { log.changes.withLock { $0.append(change) } } }
    }

    deinit { task.cancel() }

    var changes: [PowerProfilesChange] { log.changes.withLock { $0 } }

    /// Waits up to `timeout` seconds (generous: a loaded machine delivers late) for `change`.
    func waitFor(_ change: PowerProfilesChange, timeout: Double = 20) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(10)) { changes.contains(change) }
    }
}

/// PowerProfilesClient against python3-dbusmock's power_profiles_daemon template (and a bare
/// mock for the UPower name) on a private dbus-daemon per test.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct PowerProfilesClientTests {
    static let hadess = "net.hadess.PowerProfiles"

    /// ActiveProfileHolds as dictionaries of strings, whatever container types the mock chose.
    static func holds(_ client: PowerProfilesClient, on bus: BusConnection) async throws -> [[String: String]] {
        let value = try await bus.property(
            destination: client.busName, path: client.path, interface: client.interface, name: "ActiveProfileHolds")
        guard case .array(_, let holds) = value else { return [] }
        return holds.map { hold in
            var fields: [String: String] = [:]
            if case .array(_, let entries) = hold.unwrapped {
                for case .dictEntry(let key, let value) in entries {
                    if let key = key.stringValue, let text = value.unwrapped.stringValue { fields[key] = text }
                }
            }
            return fields
        }
    }

    @Test func findReturnsNilOnAnEmptyBus() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            #expect(await PowerProfilesClient.find(on: bus) == nil)
            await bus.close()
        }
    }

    @Test func findsTheLegacyNameAndReadsTheActiveProfile() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.powerProfilesDaemon, parameters: #"{"ActiveProfile": "performance"}"#, address: daemon.address)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let client = try #require(await PowerProfilesClient.find(on: bus))
            #expect(client.busName == Self.hadess)
            #expect(client.path == "/net/hadess/PowerProfiles")
            #expect(try await client.activeProfile() == "performance")
            await bus.close()
        }
    }

    @Test func prefersTheUPowerNameWhenBothAreOwned() async throws {
        try await PrivateBusDaemon.with { daemon in
            let legacy = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { legacy.stop() }
            let upower = try await DBusMock(
                .bare(
                    busName: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
                    interface: "org.freedesktop.UPower.PowerProfiles"),
                address: daemon.address)
            defer { upower.stop() }
            try await upower.addProperties(interface: "org.freedesktop.UPower.PowerProfiles", [("ActiveProfile", .string("power-saver"))])

            let bus = try await BusConnection.open(address: daemon.address)
            let client = try #require(await PowerProfilesClient.find(on: bus))
            #expect(client.busName == "org.freedesktop.UPower.PowerProfiles")
            #expect(client.interface == client.busName)
            #expect(try await client.activeProfile() == "power-saver")
            await bus.close()
        }
    }

    @Test func holdReturnsACookieThatActiveProfileHoldsShowsAndReleaseRemoves() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let client = try #require(await PowerProfilesClient.find(on: bus))
            #expect(try await Self.holds(client, on: bus).isEmpty)

            let cookie = try await client.hold(profile: "power-saver", reason: "Low Power Mode", applicationID: "joule")
            #expect(cookie > 0)
            let holds = try await Self.holds(client, on: bus)
            #expect(holds == [["Profile": "power-saver", "Reason": "Low Power Mode", "ApplicationId": "joule"]])

            let second = try await client.hold(profile: "performance", reason: "build", applicationID: "make")
            #expect(second != cookie)
            try await client.release(cookie: cookie)
            #expect(try await Self.holds(client, on: bus) == [["Profile": "performance", "Reason": "build", "ApplicationId": "make"]])
            try await client.release(cookie: second)
            #expect(try await Self.holds(client, on: bus).isEmpty)

            // An unknown cookie is an error reply, not silence.
            await #expect(throws: BusError.self) { try await client.release(cookie: 4242) }
            await bus.close()
        }
    }

    @Test func anActiveProfileChangeArrives() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))

            // What a desktop does when the user picks a profile.
            let user = try await BusConnection.open(address: daemon.address)
            _ = try await user.call(
                destination: Self.hadess, path: "/net/hadess/PowerProfiles", interface: "org.freedesktop.DBus.Properties",
                member: "Set", arguments: [.string(Self.hadess), .string("ActiveProfile"), .variant(.string("power-saver"))])
            #expect(await recorder.waitFor(.activeProfile("power-saver")))
            try await mock.setProperty(interface: Self.hadess, name: "ActiveProfile", value: .string("balanced"))
            #expect(await recorder.waitFor(.activeProfile("balanced")))
            #expect(recorder.changes == [.activeProfile("power-saver"), .activeProfile("balanced")])
            await user.close()
            await bus.close()
        }
    }

    @Test func profileReleasedArrivesWithItsCookie() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))
            let client = try #require(await PowerProfilesClient.find(on: bus))
            let cookie = try await client.hold(profile: "power-saver", reason: "Low Power Mode", applicationID: "joule")

            // The template never emits ProfileReleased itself; ppd does when the user picks a
            // profile, and then announces that profile: the daemon hears them in that order.
            try await mock.emitSignal(interface: Self.hadess, name: "ProfileReleased", signature: "u", arguments: [.uint32(cookie)])
            try await mock.setProperty(interface: Self.hadess, name: "ActiveProfile", value: .string("performance"))
            #expect(await recorder.waitFor(.activeProfile("performance")))
            #expect(recorder.changes == [.profileReleased(cookie: cookie), .activeProfile("performance")])
            await bus.close()
        }
    }

    @Test func signalsFromAConnectionThatDoesNotOwnTheNameAreIgnored() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))

            // Anyone on the system bus may send a signal with ppd's path and interface.
            let spoofer = try await BusConnection.open(address: daemon.address)
            try await spoofer.emitSignal(
                path: "/net/hadess/PowerProfiles", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arguments: [
                    .string(Self.hadess), .variantDictionary([("ActiveProfile", .string("performance"))]),
                    .array(elementSignature: "s", []),
                ])
            try await spoofer.emitSignal(path: "/net/hadess/PowerProfiles", interface: Self.hadess, member: "ProfileReleased", arguments: [.uint32(1)])
            // The real owner's signals, sent after the spoofs, arrive; the spoofs never do.
            try await mock.emitSignal(interface: Self.hadess, name: "ProfileReleased", signature: "u", arguments: [.uint32(2)])
            try await mock.setProperty(interface: Self.hadess, name: "ActiveProfile", value: .string("power-saver"))
            #expect(await recorder.waitFor(.profileReleased(cookie: 2)))
            #expect(await recorder.waitFor(.activeProfile("power-saver")))
            #expect(!recorder.changes.contains(.activeProfile("performance")))
            #expect(!recorder.changes.contains(.profileReleased(cookie: 1)))
            await spoofer.close()
            await bus.close()
        }
    }

    /// ppd ≥ 0.20 owns both names on one connection and announces every change on both objects.
    @Test func oneOwnerOfBothNamesIsHeardThroughTheFirstOnly() async throws {
        try await PrivateBusDaemon.with { daemon in
            let upower = PowerProfilesClient.services[0]
            let legacy = PowerProfilesClient.services[1]
            final class Profile: Sendable { let value = Locked("balanced") }
            let profile = Profile()
            let ppd = try await BusConnection.open(address: daemon.address)
            for service in PowerProfilesClient.services {
                let interface = BusInterface(
                    name: service.busName, properties: [.init("ActiveProfile", "s") { .string(profile.value.withLock { $0 }) }],
                    signals: [.init("ProfileReleased", "u", names: ["cookie"])])
                try await ppd.export(interface, at: service.path)
                try await ppd.requestName(service.busName)
            }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))
            #expect(await PowerProfilesClient.find(on: bus)?.busName == upower.busName)

            profile.value.withLock { $0 = "power-saver" }
            for service in [legacy, upower] {
                try await ppd.emitPropertiesChanged(path: service.path, interface: service.busName, names: ["ActiveProfile"])
            }
            try await ppd.emitSignal(path: legacy.path, interface: legacy.busName, member: "ProfileReleased", arguments: [.uint32(1)])
            try await ppd.emitSignal(path: upower.path, interface: upower.busName, member: "ProfileReleased", arguments: [.uint32(2)])
            #expect(await recorder.waitFor(.profileReleased(cookie: 2)))

            // Once the legacy name is the only one, its object speaks; everything it said
            // before came through the same match, so it has been heard (and dropped) by now.
            try await ppd.releaseName(upower.busName)
            #expect(await recorder.waitFor(.ownerChanged(busName: upower.busName, present: false)))
            try await ppd.emitSignal(path: legacy.path, interface: legacy.busName, member: "ProfileReleased", arguments: [.uint32(3)])
            #expect(await recorder.waitFor(.profileReleased(cookie: 3)))
            #expect(recorder.changes.filter { if case .activeProfile = $0 { true } else { false } } == [.activeProfile("power-saver")])
            #expect(!recorder.changes.contains(.profileReleased(cookie: 1)))
            await bus.close()
            await ppd.close()
        }
    }

    @Test func theNameAppearingAndVanishingArrivesAsOwnerChanges() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))
            #expect(await PowerProfilesClient.find(on: bus) == nil)

            let mock = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            #expect(await recorder.waitFor(.ownerChanged(busName: Self.hadess, present: true)))
            #expect(await PowerProfilesClient.find(on: bus)?.busName == Self.hadess)

            mock.stop()
            #expect(await recorder.waitFor(.ownerChanged(busName: Self.hadess, present: false)))
            #expect(await PowerProfilesClient.find(on: bus) == nil)

            // A restarted service: a new owner, which the daemon must hold with again.
            let restarted = try await DBusMock(.powerProfilesDaemon, address: daemon.address)
            defer { restarted.stop() }
            _ = await eventually(every: .milliseconds(10)) { recorder.changes.count >= 3 }
            #expect(
                recorder.changes == [
                    .ownerChanged(busName: Self.hadess, present: true), .ownerChanged(busName: Self.hadess, present: false),
                    .ownerChanged(busName: Self.hadess, present: true),
                ])
            // The UPower name was never owned, so nothing was said about it.
            await bus.close()
        }
    }

    @Test func theStreamEndsWhenTheConnectionCloses() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let stream = try await PowerProfilesClient.changes(on: bus)
            await bus.close()
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
        }
    }
}
