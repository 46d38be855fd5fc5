@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleClient
import JouleTesting
import Testing

/// `AppsClient.events(local:environment:)`, behind `joule app events`: this user's `joule run`s
/// and joule daemon's apps in one stream.
@Suite(.serialized) struct AppsClientEventsTests {
    /// No `joule run` of this user: a runtime directory without `apps/`.
    static func noApps(_ scratch: ScratchDirectory) -> AppControlClient {
        AppControlClient(runtime: RuntimeDirectory(path: scratch.path))
    }

    @Test func withNoAppsAndNoDaemonTheStreamEndsAtOnce() async throws {
        let scratch = try ScratchDirectory()
        let nowhere = [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/joule/session",
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/joule/system",
        ]
        var lines: [JSONValue] = []
        for await line in await AppsClient.events(local: Self.noApps(scratch), environment: nowhere) { lines.append(line) }
        #expect(lines.isEmpty)
    }

    @Test func theDaemonsEventsArriveAndOutliveTheLocalApps() async throws {
        try DaemonClientTests.requireDaemon()
        let scratch = try ScratchDirectory()
        try await PrivateBusDaemon.with { bus in
            // Stands in for joule daemon's org.joule.Apps1: only its Event signal.
            let daemon = try await BusConnection.open(address: bus.address)
            try await daemon.export(
                BusInterface(name: AppsBus.interfaceName, signals: [.init("Event", "s", names: ["json"])]), at: AppsBus.objectPath)
            try await daemon.requestName(AppsBus.busName)
            let stream = await AppsClient.events(local: Self.noApps(scratch), environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
            // Subscribed when events returns: what the daemon says now is heard.
            for event in ["didEnterBackground", "didSuspend"] {
                try await daemon.emitSignal(
                    path: AppsBus.objectPath, interface: AppsBus.interfaceName, member: "Event",
                    arguments: [.string(#"{"app":"editor","event":"\#(event)"}"#)])
            }
            var heard: [String] = []
            for await line in stream {
                heard.append(line["event"]?.stringValue ?? "?")
                if heard.count == 2 { break }
            }
            #expect(heard == ["didEnterBackground", "didSuspend"])
            await daemon.close()
        }
    }
}
