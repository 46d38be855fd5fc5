import Foundation
import JouleWire
import JouleHardware
import JouleTransferQueue
import JouleSession
import JouleTesting
import Testing

/// The follower's wiring against a stand-in org.joule.Transfers1 (a dbusmock object whose `Get`
/// answers NotFound for another user's transfer, and whose `List` has one of the user's
/// waiting) and dbusmock's notification server, on one private bus.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct TransferBatchFollowerTests {
    @Test func onlyTheUsersTransfersCountAndAListedOneHoldsTheBatch() async throws {
        try await PrivateBusDaemon.with { daemon in
            let server = try await DBusMock(.notificationDaemon, address: daemon.address)
            defer { server.stop() }
            let transfers = try await DBusMock(
                .bare(busName: TransfersBus.busName, path: TransfersBus.objectPath, interface: TransfersBus.interfaceName),
                address: daemon.address)
            defer { transfers.stop() }
            let early = Transfer(
                id: "0e4f1c52-0000-4000-8000-000000000001", ownerUID: 1000, url: "https://example.org/a", destination: "/tmp/a",
                createdAt: 1, deadline: 2)
            let list = Transfer.json([early]).serialized
            try await transfers.addMethod(
                interface: TransfersBus.interfaceName, name: "List", in: "", out: "s", code: "ret = \(Self.python(list))")
            try await transfers.addMethod(
                interface: TransfersBus.interfaceName, name: "Get", in: "s", out: "s", code: """
                    if args[0].startswith('foreign'):
                        raise dbus.exceptions.DBusException('no transfer', name='\(TransfersBus.notFoundError)')
                    ret = '{}'
                    """)
            let bus = try await BusConnection.open(address: daemon.address)
            let log = LogLines()
            var switches = NotificationSwitches()
            switches.transfers = true
            let notifier = SessionNotifier(
                client: NotificationsClient(bus: bus), policy: NotificationPolicy(switches: switches),
                setLowPowerMode: { _ in }, log: log.sink)
            let follower = TransferBatchFollower(bus: bus, notifier: notifier, quiet: 0.3, log: log.sink)
            let signals = try await bus.signals(matchingAny: TransferBatchFollower.rules)
            let following = Task { await follower.follow(signals) }
            defer { following.cancel() }

            func emit(_ member: String, _ words: String...) async throws {
                try await transfers.emitSignal(
                    interface: TransfersBus.interfaceName, name: member, signature: String(repeating: "s", count: words.count),
                    arguments: words.map { .string($0) })
            }
            try await emit("TransferChanged", "mine-1", "running")
            try await emit("TransferChanged", "foreign-1", "running")
            try await emit("TransferFinished", "mine-1", "completed", "/tmp/m")
            try await emit("TransferFinished", "foreign-1", "failed", "/tmp/f")
            // The listed transfer was live all along: it ends the batch.
            try await emit("TransferChanged", early.id, "failed")
            try await emit("TransferFinished", early.id, "failed", "/tmp/a")

            #expect(try await eventually(timeout: 30) { try await !server.methodCalls("Notify").isEmpty }, "\(log.all)")
            following.cancel()
            let calls = try await server.methodCalls("Notify")
            #expect(calls.count == 1, "\(calls)")
            #expect(calls.first.map { $0.count > 4 ? [$0[3].stringValue, $0[4].stringValue] : [] }
                == ["2 background transfers finished", "1 completed, 1 failed."], "\(calls)")
            // Each new id looked up once; the listed one not at all.
            #expect(try await transfers.methodCalls("Get").map { $0.first?.stringValue ?? "?" } == ["mine-1", "foreign-1"])
            #expect(log.all == [
                "session: following org.joule.Transfers1 for finished batches",
                "session: transfers finished: 1 completed, 1 failed",
            ])
            await bus.close()
        }
    }

    /// A Python string literal of `text`.
    static func python(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
