import Foundation
import JouleWire
import JouleHardware
import JouleTransferQueue
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Finished transfer batches reach the desktop, end to end: joule daemon on a private bus
/// (playing the system and the session bus), the fault-injection HTTP server, python3-dbusmock's
/// notification server, and `joule session` with `session.notifications.transfers` on or off.
/// Two transfers, one failing (404), make one batch: one Notify with both counts.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct SessionTransferNotifyTests {
    /// The daemon on AC with a full battery (no energy notification of its own), the server,
    /// the notification mock, and the agent, started with `transfers` as the switch.
    final class Rig: @unchecked Sendable {
        let daemon: DaemonHarness
        let server: FaultHTTPServer
        let notifications: DBusMock
        let client: BusConnection
        let agent = Process()
        let agentLog: String

        init(transfers: Bool) async throws {
            daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
            server = try await FaultHTTPServer.start()
            try TransferDaemonTests.Network.wifi.write(into: daemon.knobs.path)
            try await daemon.start()
            notifications = try await DBusMock(.notificationDaemon, address: daemon.bus.address)
            client = try await daemon.client()

            let home = daemon.directory.appendingPathComponent("session-home").path
            try FileManager.default.createDirectory(atPath: home + "/config/joule", withIntermediateDirectories: true)
            try "session:\n  notifications: {transfers: \(transfers)}\n"
                .write(toFile: home + "/config/joule/session.yaml", atomically: true, encoding: .utf8)
            agent.executableURL = CLIHarness.binary
            agent.arguments = ["session"]
            var environment = ProcessInfo.processInfo.environment
            for (key, value) in [
                "DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address, "DBUS_SESSION_BUS_ADDRESS": daemon.bus.address, "HOME": home,
                "XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "JOULE_STATE_DIR": home + "/state",
            ] { environment[key] = value }
            for key in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK"] { environment[key] = nil }
            agent.environment = environment
            agentLog = daemon.directory.appendingPathComponent("session.log").path
            _ = FileManager.default.createFile(atPath: agentLog, contents: nil)
            agent.standardError = FileHandle(forWritingAtPath: agentLog)
            agent.standardOutput = FileHandle.nullDevice
            try agent.run()
        }

        /// For a `defer`: stops everything now, without waiting.
        func end() {
            if agent.isRunning { kill(agent.processIdentifier, SIGKILL) }
            notifications.stop()
            daemon.end()
            daemon.bus.stop()
            let client = client
            Task { await client.close() }
        }

        var said: String { (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "" }

        func add(_ request: TransferRequest) async throws -> String {
            let reply = try await client.call(
                destination: TransfersBus.busName, path: TransfersBus.objectPath, interface: TransfersBus.interfaceName,
                member: "Add", arguments: [request.busValue])
            return try #require(reply.first?.stringValue)
        }

        func state(_ id: String) async throws -> String? {
            let reply = try await client.call(
                destination: TransfersBus.busName, path: TransfersBus.objectPath, interface: TransfersBus.interfaceName,
                member: "Get", arguments: [.string(id)])
            let text = try #require(reply.first?.stringValue)
            return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["state"] as? String
        }

        /// Notify's arguments (app_name, replaces_id, app_icon, summary, body, …) per call.
        func notifyCalls() async throws -> [[BusValue]] { try await notifications.methodCalls("Notify") }

        /// One download trickling for about four seconds, then one answered 404 while it runs:
        /// the queue drains only when both have finished. Returns once both are final.
        func twoTransfersOneFailing() async throws {
            let slow = try await add(TransferRequest(
                url: server.url("/slow?size=40000&trickle=10000"), destination: server.destination("slow.bin")))
            let missing = try await add(TransferRequest(url: server.url("/missing?status=404"), destination: server.destination("missing.bin")))
            #expect(try await eventually(timeout: 60, every: .milliseconds(100)) {
                let ended = (try await state(slow), try await state(missing))
                return ended.0 == "completed" && ended.1 == "failed"
            }, "\(daemon.log)")
        }
    }

    @Test func aBatchWithAFailureIsOneNotificationWithBothCounts() async throws {
        let rig = try await Rig(transfers: true)
        defer { rig.end() }
        #expect(await eventually(timeout: 30) { rig.said.contains("following org.joule.Transfers1 for finished batches") }, "\(rig.said)")
        try await rig.twoTransfersOneFailing()
        #expect(try await eventually(timeout: 60, every: .milliseconds(100)) { try await !rig.notifyCalls().isEmpty }, "\(rig.said)")
        #expect(await rig.agent.end(SIGTERM) == 0, "\(rig.said)")
        // Stopped: no batch timer is left to add a call.
        let calls = try await rig.notifyCalls()
        #expect(calls.count == 1, "\(calls)")
        let call = try #require(calls.first)
        #expect(call.count >= 5 && call[0].stringValue == "Joule" && call[1].uint32Value == 0, "\(call)")
        #expect(call.count >= 5 && call[3].stringValue == "2 background transfers finished", "\(call)")
        #expect(call.count >= 5 && call[4].stringValue == "1 completed, 1 failed.", "\(call)")
        #expect(rig.said.contains("joule session: transfers finished: 1 completed, 1 failed"), "\(rig.said)")
    }

    @Test func theNextBatchReplacesTheLastOnesNotification() async throws {
        let rig = try await Rig(transfers: true)
        defer { rig.end() }
        #expect(await eventually(timeout: 30) { rig.said.contains("following org.joule.Transfers1 for finished batches") }, "\(rig.said)")
        try await rig.twoTransfersOneFailing()
        #expect(try await eventually(timeout: 60, every: .milliseconds(100)) { try await rig.notifyCalls().count == 1 }, "\(rig.said)")
        let one = try await rig.add(TransferRequest(url: rig.server.url("/one?size=1000"), destination: rig.server.destination("one.bin")))
        #expect(try await eventually(timeout: 60, every: .milliseconds(100)) { try await rig.notifyCalls().count == 2 }, "\(rig.said)")
        #expect(try await rig.state(one) == "completed")
        #expect(await rig.agent.end(SIGTERM) == 0, "\(rig.said)")
        let calls = try await rig.notifyCalls()
        #expect(calls.count == 2, "\(calls)")
        // The server's ids start at 1: the second batch names the first's as replaces_id.
        #expect(calls.last.map { $0.count >= 5 ? "\($0[1].uint32Value ?? 0) \($0[3].stringValue ?? "") / \($0[4].stringValue ?? "")" : "\($0)" }
            == "1 1 background transfer finished / All completed.", "\(calls)")
    }

    @Test func withTheSwitchOffNothingIsShown() async throws {
        let rig = try await Rig(transfers: false)
        defer { rig.end() }
        #expect(await eventually(timeout: 30) { rig.said.contains("the foreground is left to joule app") }, "\(rig.said)")
        try await rig.twoTransfersOneFailing()
        // A batch would be shown 2 s after the queue drained; give it thrice that, loaded.
        #expect(try await !eventually(timeout: 6, every: .milliseconds(100)) { try await !rig.notifyCalls().isEmpty })
        #expect(await rig.agent.end(SIGTERM) == 0, "\(rig.said)")
        #expect(try await rig.notifyCalls().isEmpty)
        #expect(!rig.said.contains("Transfers1"), "\(rig.said)")
    }
}
