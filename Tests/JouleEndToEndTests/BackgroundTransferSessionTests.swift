import Foundation
import JouleHardware
import JouleTransferQueue
import JouleClient
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The Swift API against the real `joule daemon`: a session sees only its own transfers and
/// events, and a program reconnecting with the same identifier after the daemon restarted
/// finds the transfers it added before.
@Suite(.serialized, .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"))
struct BackgroundTransferSessionTests {
    static func session(_ identifier: String, _ daemon: DaemonHarness) async throws -> BackgroundTransferSession {
        BackgroundTransferSession(
            configuration: .background(withIdentifier: identifier),
            client: try await TransfersClient.connect(address: daemon.bus.address, as: .system))
    }

    @Test func aSessionFindsItsTransfersAfterARestart() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("")
        try await daemon.start()
        let server = try await FaultHTTPServer.start()
        let later = TransferRequest(url: server.url("/later.bin"), destination: server.destination("later.bin"), beginAfter: 3600)
        let other = TransferRequest(url: server.url("/other.bin"), destination: server.destination("other.bin"), beginAfter: 3600)

        let first = try await Self.session("org.example.sync", daemon)
        let firstID = try await first.add(later)
        let otherID = try await Self.session("org.example.other", daemon).add(other)
        #expect(try await first.transfers().map(\.id) == [firstID])
        await first.client.close()

        #expect(await daemon.stop(SIGTERM) == 0, "\(daemon.log)")
        try await daemon.start()

        let again = try await Self.session("org.example.sync", daemon)
        let mine = try await again.transfers()
        #expect(mine.map(\.id) == [firstID], "\(daemon.log)")
        #expect(mine.first?.destination == server.destination("later.bin"))
        #expect(mine.first?.waitingFor.contains(.beginAfter) == true)
        let others = try await Self.session("org.example.other", daemon)
        #expect(try await others.transfers().map(\.id) == [otherID])

        // Events are this session's only: the other session's cancel is not among them.
        let events = TransferEventLog(try await again.events())
        try await others.cancel(otherID)
        try await again.cancel(firstID)
        let cancelled = try await events.first { $0.id == firstID && $0.path != nil }
        #expect(cancelled == .finished(id: firstID, state: "cancelled", path: server.destination("later.bin")), "\(daemon.log)")

        // A download through the session, followed to its end through the events.
        let destination = server.destination("session.bin")
        let downloadID = try await again.download(from: server.url("/session.bin?size=5000"), to: destination)
        let done = try await events.first { $0.id == downloadID && $0.path != nil }
        #expect(done == .finished(id: downloadID, state: "completed", path: destination), "\(daemon.log)")
        #expect(events.all.allSatisfy { $0.id == firstID || $0.id == downloadID }, "\(events.all)")
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: 5000))
        let listed = try await again.transfers()
        #expect(listed.map(\.id) == [firstID, downloadID])
        #expect(listed.last?.state == .completed)
        // The session's defaults reached the daemon: the seven-day deadline.
        #expect((listed.last?.deadline ?? 0) > Date().timeIntervalSince1970 + 600_000)
        await again.client.close()
        await others.client.close()
    }
}
