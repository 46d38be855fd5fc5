import Foundation
import JouleWire
import JouleHardware
import JouleTransferQueue
import JouleDaemon
import JouleTesting
import Testing

/// NetworkManagerClient against python3-dbusmock's networkmanager template on a private bus.
/// The template has no `Metered`; each test adds it the way NM ≥ 1.0 exposes it (a uint32).
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct NetworkManagerClientTests {
    static let nm = NetworkManagerClient.interface

    final class Recorder: Sendable {
        private final class Log: Sendable { let changes = Locked<[NetworkManagerClient.Change]>([]) }
        private let log = Log()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<NetworkManagerClient.Change>) {
            let log = self.log
            task = Task { for await change in stream { log.changes.withLock { $0.append(change) } } }
        }

        deinit { task.cancel() }

        var changes: [NetworkManagerClient.Change] { log.changes.withLock { $0 } }

        /// Waits up to 20 s (generous: a loaded machine delivers late) for `change`.
        func waitFor(_ change: NetworkManagerClient.Change) async -> Bool {
            await eventually(every: .milliseconds(10)) { changes.contains(change) }
        }
    }

    static func networkManager(metered: NetworkManagerClient.Metered, on daemon: PrivateBusDaemon) async throws -> DBusMock {
        let mock = try await DBusMock(.networkManager, address: daemon.address)
        try await mock.addProperties(interface: nm, [("Metered", .uint32(metered.rawValue))])
        return mock
    }

    @Test func findIsNilWithoutNetworkManager() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            #expect(await NetworkManagerClient.find(on: bus) == nil)
            await bus.close()
        }
    }

    @Test func readsMetered() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.networkManager(metered: .guessYes, on: daemon)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let client = try #require(await NetworkManagerClient.find(on: bus))
            #expect(try await client.metered() == .guessYes)
            #expect(try await client.metered().isMetered)
            try await mock.setProperty(interface: Self.nm, name: "Metered", value: .uint32(4))
            #expect(try await client.metered() == .guessNo)
            #expect(try await !client.metered().isMetered)
            try await mock.setProperty(interface: Self.nm, name: "Metered", value: .uint32(99))
            #expect(try await client.metered() == .unknown)
            await bus.close()
        }
    }

    @Test func meteredValues() {
        #expect(NetworkManagerClient.Metered.allCases.filter(\.isMetered) == [.yes, .guessYes])
        #expect(NetworkManagerClient.Metered(rawValue: 2) == .no)
    }

    @Test func aMeteredChangeArrives() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.networkManager(metered: .no, on: daemon)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = Recorder(try await NetworkManagerClient.changes(on: bus))
            try await mock.setProperty(interface: Self.nm, name: "Metered", value: .uint32(1))
            #expect(await recorder.waitFor(.metered(.yes)))
            // Other properties changing say nothing about Metered.
            try await mock.setProperty(interface: Self.nm, name: "State", value: .uint32(50))
            try await mock.setProperty(interface: Self.nm, name: "Metered", value: .uint32(3))
            #expect(await recorder.waitFor(.metered(.guessYes)))
            #expect(recorder.changes == [.metered(.yes), .metered(.guessYes)])
            await bus.close()
        }
    }

    @Test func aSpoofedPropertiesChangedIsIgnored() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.networkManager(metered: .no, on: daemon)
            defer { mock.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = Recorder(try await NetworkManagerClient.changes(on: bus))
            let spoofer = try await BusConnection.open(address: daemon.address)
            try await spoofer.emitSignal(
                path: NetworkManagerClient.path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arguments: [.string(Self.nm), .variantDictionary([("Metered", .uint32(2))]), .array(elementSignature: "s", [])])
            try await mock.setProperty(interface: Self.nm, name: "Metered", value: .uint32(1))
            #expect(await recorder.waitFor(.metered(.yes)))
            #expect(recorder.changes == [.metered(.yes)])
            await spoofer.close()
            await bus.close()
        }
    }

    @Test func networkManagerAppearingAndLeavingArrives() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = Recorder(try await NetworkManagerClient.changes(on: bus))
            let mock = try await Self.networkManager(metered: .yes, on: daemon)
            #expect(await recorder.waitFor(.ownerChanged(present: true)))
            #expect(await NetworkManagerClient.find(on: bus) != nil)
            mock.stop()
            #expect(await recorder.waitFor(.ownerChanged(present: false)))
            #expect(await NetworkManagerClient.find(on: bus) == nil)
            await bus.close()
        }
    }

    /// The whole chain: NM's Metered feeding NetworkMeteredness on a fixture root.
    @Test func meteredFeedsTheDecision() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.networkManager(metered: .guessNo, on: daemon)
            defer { mock.stop() }
            let tree = try NetworkTree.machine(defaultVia: [("wwan0", 100)])
            let bus = try await BusConnection.open(address: daemon.address)
            let client = try #require(await NetworkManagerClient.find(on: bus))
            let decision = NetworkMeteredness.read(root: FileRoot(tree.path), networkManager: try await client.metered())
            #expect(decision == .init(metered: false, interface: "wwan0", source: .networkManager))
            await bus.close()
        }
    }
}
