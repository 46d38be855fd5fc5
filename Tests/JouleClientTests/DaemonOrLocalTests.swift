@testable import JouleWire
@testable import JouleHardware
@testable import JouleClient
import JouleTesting
import JouleDaemonTesting
import Testing

/// `DaemonClient.withDaemonOrLocal`, the one daemon-or-local decision: which side runs, and
/// when the client is closed.
@Suite(.serialized) struct DaemonOrLocalTests {
    /// Buses that do not exist: no daemon, found at once.
    static let nowhere = [
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/joule/session",
        "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/joule/system",
    ]

    static func isClosed(_ client: DaemonClient) async -> Bool {
        do throws(BusError) {
            _ = try await client.status()
            return false
        } catch {
            if case .closed = error { return true }
            return false
        }
    }

    @Test func withoutADaemonItReadsLocally() async {
        var asked = false
        let answer = await DaemonClient.withDaemonOrLocal(environment: Self.nowhere) { _ in
            asked = true
            return "daemon"
        } local: {
            "local"
        }
        #expect(answer == "local")
        #expect(!asked)
    }

    @Test func theDaemonAnswersAndIsClosedAfter() async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInEnergyDaemon(address: bus.address, status: #"{"from":"daemon"}"#)
            var used: DaemonClient?
            var readLocally = false
            let answer = try await DaemonClient.withDaemonOrLocal(environment: DaemonClientTests.environment(bus.address)) { client in
                used = client
                return try await client.status()
            } local: {
                readLocally = true
                return "local"
            }
            #expect(answer == #"{"from":"daemon"}"#)
            #expect(!readLocally)
            let client = try #require(used)
            #expect(client.bus == .system)
            #expect(await Self.isClosed(client))
            await daemon.close()
        }
    }

    @Test func anAnswerThatFollowsKeepsTheClientOpen() async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInEnergyDaemon(address: bus.address, status: #"{"from":"daemon"}"#)
            let client = try await DaemonClient.withDaemonOrLocal(
                environment: DaemonClientTests.environment(bus.address), following: true
            ) { client in
                client
            } local: { () throws -> DaemonClient in
                throw PrivateBusDaemon.Failure.missing("no daemon found")
            }
            #expect(try await client.status() == #"{"from":"daemon"}"#)
            await client.close()
            await daemon.close()
        }
    }

    @Test func aDaemonThatCannotAnswerFallsBackAfterClosing() async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInEnergyDaemon(address: bus.address)
            var used: DaemonClient?
            var closedBeforeLocal = false
            let answer = await DaemonClient.withDaemonOrLocal(
                environment: DaemonClientTests.environment(bus.address), following: true
            ) { client -> String? in
                used = client
                return nil
            } local: {
                if let used { closedBeforeLocal = await Self.isClosed(used) }
                return "local"
            }
            #expect(answer == "local")
            #expect(used != nil)
            #expect(closedBeforeLocal)
            await daemon.close()
        }
    }

    @Test func whatTheDaemonSideThrowsIsThrownAfterClosing() async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInEnergyDaemon(address: bus.address)
            var used: DaemonClient?
            var readLocally = false
            await #expect(throws: BusError.unexpected(operation: "test", detail: "refused")) {
                try await DaemonClient.withDaemonOrLocal(environment: DaemonClientTests.environment(bus.address)) {
                    client throws(BusError) -> String? in
                    used = client
                    throw .unexpected(operation: "test", detail: "refused")
                } local: { () throws(BusError) -> String in
                    readLocally = true
                    return "local"
                }
            }
            #expect(!readLocally)
            let client = try #require(used)
            #expect(await Self.isClosed(client))
            await daemon.close()
        }
    }

    @Test func aCallerThatMayNotAskTheDaemonReadsLocally() async throws {
        try DaemonClientTests.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await StandInEnergyDaemon(address: bus.address)
            var asked = false
            let answer = await DaemonClient.withDaemonOrLocal(
                environment: DaemonClientTests.environment(bus.address), askingDaemon: false
            ) { _ in
                asked = true
                return "daemon"
            } local: {
                "local"
            }
            #expect(answer == "local")
            #expect(!asked)
            await daemon.close()
        }
    }
}
