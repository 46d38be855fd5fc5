import Foundation
import Glibc
import Testing
@testable import JouleHardware

/// The live transport's loop over one end of a socket pair standing in for the HCI socket
/// (this kernel may have no AF_BLUETOOTH): commands out as H4 packets, events in, answers
/// matched to commands, deadlines on the monotonic clock, and a close that wakes the loop.
@Suite struct LiveHCITransportLoopTests {
    /// (the transport, the controller's end of the pair)
    /// Commands wait 30 s by default: on a crowded 2-core machine the test's own reads and
    /// writes can lag seconds behind, and only the timeout test needs a short deadline.
    static func pair(commandTimeout: Duration = .seconds(30), tick: Duration = .seconds(60)) throws -> (LiveHCITransport, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        let transport = try LiveHCITransport(
            socket: fds[0], adapterName: "hcitest", savedFilter: nil, commandTimeout: commandTimeout, tick: tick)
        return (transport, fds[1])
    }

    /// Reads one packet the transport wrote, waiting up to 30 s without blocking a thread of
    /// the cooperative pool (the transport's caller needs one to queue the command).
    static func readPacket(_ fd: Int32) async -> [UInt8] {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(30)
        while poll(&entry, 1, 0) != 1, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        guard entry.revents != 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 300)
        let n = read(fd, &buffer, buffer.count)
        return n > 0 ? Array(buffer[0..<n]) : []
    }

    static func writePacket(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    @Test func commandsGoOutAsH4PacketsAndTheirAnswersComeBack() async throws {
        let (transport, controller) = try Self.pair()
        defer { close(controller) }
        async let status = transport.send(.setScanEnable(true))
        let packet = await Self.readPacket(controller)
        #expect(packet == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        Self.writePacket(controller, [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x0C])
        #expect(try await status == 0x0C)
        async let second = transport.send(.setScanEnable(false))
        _ = await Self.readPacket(controller)
        Self.writePacket(controller, [0x04, 0x0F, 0x04, 0x00, 0x01, 0x0C, 0x20])
        #expect(try await second == 0x00)
        await transport.close()
    }

    @Test func anAnswerWithoutAStatusByteIsAProtocolError() async throws {
        let (transport, controller) = try Self.pair()
        defer { close(controller) }
        let status = Task { () async throws(HCITransportError) -> UInt8 in try await transport.send(.setScanEnable(true)) }
        _ = await Self.readPacket(controller)
        // Command Complete with the opcode but no return parameters.
        Self.writePacket(controller, [0x04, 0x0E, 0x03, 0x01, 0x0C, 0x20])
        await #expect(throws: HCITransportError.malformedAnswer(
            command: "LE Set Scan Enable",
            .truncated(field: "Command Complete status", offset: 3, needed: 1, available: 0))
        ) { try await status.value }
        await transport.close()
    }

    @Test func eventsArriveWithWallClockTime() async throws {
        let (transport, controller) = try Self.pair()
        defer { close(controller) }
        let before = WallClock.micros()
        Self.writePacket(controller, [0x04, 0x3E, 0x02, 0x02, 0x00])
        let record = try #require(try await transport.nextEvent())
        #expect(record.bytes == [0x3E, 0x02, 0x02, 0x00])
        #expect((record.timestampMicros ?? 0) >= before)
        transport.stopEvents()
        #expect(try await transport.nextEvent() == nil, "stopped: no more events")
        await transport.close()
    }

    @Test func anUnansweredCommandTimesOutOnTheMonotonicClock() async throws {
        let (transport, controller) = try Self.pair(commandTimeout: .milliseconds(50))
        defer { close(controller) }
        // No event and no tick (60 s) comes: only the command's own deadline can end the wait.
        await #expect(throws: HCITransportError.commandTimeout(command: "LE Set Scan Enable")) {
            try await transport.send(.setScanEnable(true))
        }
        await transport.close()
    }

    @Test func closeWakesTheLoopAtOnce() async throws {
        let (transport, controller) = try Self.pair()
        defer { close(controller) }
        // The loop waits for the tick (60 s here); close must not wait for it.
        try await Task.sleep(for: .milliseconds(20))
        let start = ContinuousClock.now
        await transport.close()
        #expect(ContinuousClock.now - start < .seconds(30), "well before the 60 s tick")
        await #expect(throws: HCITransportError.adapterGone("hcitest", .brokenPipe)) {
            try await transport.send(.setScanEnable(false))
        }
    }

    @Test func theControllerGoingAwayEndsTheTransport() async throws {
        let (transport, controller) = try Self.pair()
        close(controller)
        await #expect(throws: HCITransportError.adapterGone("hcitest", .brokenPipe)) {
            try await transport.nextEvent()
        }
        await transport.close()
    }

    @Test func ticksKeepTimersRunningWhileTheAirIsQuiet() async throws {
        let (transport, controller) = try Self.pair(tick: .milliseconds(30))
        defer { close(controller) }
        let record = try #require(try await transport.nextEvent())
        #expect(record.bytes.isEmpty)
        await transport.close()
    }
}
