@testable import JouleWire
@testable import JouleHardware
@testable import JouleTransferQueue
@testable import JouleClient
import JouleTesting
import Testing

/// `TransfersClient.wait(for:timeout:)`, behind `joule transfer wait`: the race between the
/// transfer's signals, the timeout and the daemon leaving, and the read that follows it.
@Suite(.serialized) struct TransfersClientWaitTests {
    static let id = "0f8e2c1a-7d3b-4c5d-9e6f-0123456789ab"

    /// Stands in for joule daemon's `org.joule.Transfers1`: `Get` answers with one transfer in
    /// the states given, one per call (the last repeats), and the test sends the signals.
    final class StandInTransfers: Sendable {
        let connection: BusConnection
        private let states: Locked<[TransferState]>
        let gets = Locked(0)

        init(address: String, states: [TransferState]) async throws {
            connection = try await BusConnection.open(address: address)
            let answers = Locked(states)
            self.states = answers
            let gets = self.gets
            try await connection.export(
                BusInterface(
                    name: TransfersBus.interfaceName,
                    methods: [
                        .init("Get", in: "s", inNames: ["id"], out: "s", outNames: ["json"]) { call throws(BusMethodError) in
                            let state = answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
                            gets.withLock { $0 += 1 }
                            let transfer = Transfer(
                                id: TransfersClientWaitTests.id, ownerUID: 0, url: "https://example.org/x", destination: "/tmp/x",
                                createdAt: 0, deadline: 0, state: state)
                            return [.string(transfer.json.serialized)]
                        },
                    ],
                    signals: [
                        .init("TransferChanged", "ss", names: ["id", "state"]),
                        .init("TransferFinished", "sss", names: ["id", "state", "path"]),
                    ]),
                at: TransfersBus.objectPath)
            try await connection.requestName(TransfersBus.busName)
        }

        func finished(_ id: String, _ state: String) async throws {
            try await connection.emitSignal(
                path: TransfersBus.objectPath, interface: TransfersBus.interfaceName, member: "TransferFinished",
                arguments: [.string(id), .string(state), .string("/tmp/x")])
        }

        func changed(_ id: String, _ state: String) async throws {
            try await connection.emitSignal(
                path: TransfersBus.objectPath, interface: TransfersBus.interfaceName, member: "TransferChanged",
                arguments: [.string(id), .string(state)])
        }

        func close() async { await connection.close() }
    }

    /// The client and the stand-in on a private bus, for `body`.
    static func withDaemon(
        answering states: [TransferState], _ body: (TransfersClient, StandInTransfers) async throws -> Void
    ) async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInTransfers(address: bus.address, states: states)
            let client = try await TransfersClient.connect(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
            try await body(client, daemon)
            await client.close()
            await daemon.close()
        }
    }

    // MARK: the race alone

    @Test func theFirstFinalEventOfTheTransferEndsTheRace() async {
        let (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
        continuation.yield(.finished(id: "other", state: "completed", path: "/x"))
        continuation.yield(.changed(id: Self.id, state: "running"))
        continuation.yield(.changed(id: Self.id, state: "failed"))
        continuation.yield(.finished(id: Self.id, state: "failed", path: "/x"))
        #expect(await TransfersClient.firstEnding(of: events, id: Self.id, timeout: 60) == .final("failed"))
    }

    @Test func aStreamThatEndsMeansTheDaemonLeft() async {
        let (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
        continuation.yield(.changed(id: Self.id, state: "retrying"))
        continuation.finish()
        #expect(await TransfersClient.firstEnding(of: events, id: Self.id, timeout: nil) == .daemonLeft)
    }

    @Test func silenceEndsAtTheTimeout() async {
        let (silent, _) = AsyncStream.makeStream(of: TransferEvent.self)
        let start = ContinuousClock.now
        #expect(await TransfersClient.firstEnding(of: silent, id: Self.id, timeout: 0.1) == .timedOut)
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        // A timeout no Duration can hold is as good as none, not a trap.
        let (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
        let forever = Task { await TransfersClient.firstEnding(of: events, id: Self.id, timeout: .greatestFiniteMagnitude) }
        continuation.yield(.finished(id: Self.id, state: "completed", path: "/x"))
        #expect(await forever.value == .final("completed"))
    }

    // MARK: against a daemon

    @Test func aFinishedTransferEndsAtOnce() async throws {
        try await Self.withDaemon(answering: [.completed]) { client, daemon in
            let (ending, transfer) = try await client.wait(for: Self.id, timeout: nil)
            #expect(ending == .final("completed"))
            #expect(transfer.state == .completed)
            #expect(daemon.gets.withLock { $0 } == 1)
        }
    }

    @Test func theFinalSignalEndsTheWaitAndTheTransferIsReadAgain() async throws {
        try await Self.withDaemon(answering: [.running, .failed(reason: "HTTP 404")]) { client, daemon in
            async let waited = client.wait(for: Self.id, timeout: nil)
            // Subscribed before the first Get: a signal after it cannot be missed.
            #expect(await eventually { daemon.gets.withLock { $0 } == 1 })
            try await daemon.changed(Self.id, "retrying")
            try await daemon.finished(Self.id, "failed")
            let (ending, transfer) = try await waited
            #expect(ending == .final("failed"))
            #expect(transfer.error == "HTTP 404")
            #expect(daemon.gets.withLock { $0 } == 2)
        }
    }

    @Test func aTransferStillLiveAtTheTimeoutSaysWhereItStands() async throws {
        try await Self.withDaemon(answering: [.running, .retrying(next: 100)]) { client, _ in
            let (ending, transfer) = try await client.wait(for: Self.id, timeout: 0.1)
            #expect(ending == .timedOut)
            #expect(transfer.state.name == "retrying")
        }
    }

    @Test func aTransferThatFinishedAsTheTimeRanOutIsFinal() async throws {
        try await Self.withDaemon(answering: [.running, .completed]) { client, _ in
            let (ending, transfer) = try await client.wait(for: Self.id, timeout: 0)
            #expect(ending == .final("completed"))
            #expect(transfer.state == .completed)
        }
    }

    @Test func aDaemonThatLeavesEndsTheWait() async throws {
        try await Self.withDaemon(answering: [.running]) { client, daemon in
            async let waited = client.wait(for: Self.id, timeout: nil)
            #expect(await eventually { daemon.gets.withLock { $0 } == 1 })
            try await daemon.connection.releaseName(TransfersBus.busName)
            let (ending, transfer) = try await waited
            #expect(ending == .daemonLeft)
            #expect(transfer.state == .running)
            #expect(daemon.gets.withLock { $0 } == 1)
        }
    }
}
