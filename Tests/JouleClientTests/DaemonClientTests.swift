import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleClient
import JouleTesting
import JouleDaemonTesting
import Testing

/// The client side of `org.joule.Energy1`, against an `EnergyService` the test exports on a
/// private dbus-daemon (standing in for `joule daemon`).
@Suite(.serialized) struct DaemonClientTests {
    typealias FakeDaemon = StandInEnergyDaemon

    static func requireDaemon() throws {
        if PrivateBusDaemon.executable == nil {
            Issue.record("SKIPPED: dbus-daemon is not installed; run scripts/install-deps.sh")
            throw PrivateBusDaemon.Failure.missing("see the issue above")
        }
    }

    /// Only the private bus, as the system bus: no session bus is looked at.
    static func environment(_ address: String) -> [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    @Test func findsTheDaemonOnTheSystemBus() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await FakeDaemon(address: bus.address)
            let client = try #require(await DaemonClient.find(environment: Self.environment(bus.address)))
            #expect(client.bus == .system)
            #expect(client.address == bus.address)
            await client.close()
            await daemon.close()
        }
    }

    @Test func theSessionBusComesFirst() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { session in
            try await PrivateBusDaemon.with { system in
                let onSystem = try await FakeDaemon(address: system.address)
                let onSession = try await FakeDaemon(address: session.address)
                let environment = ["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_SYSTEM_BUS_ADDRESS": system.address]
                let client = try #require(await DaemonClient.find(environment: environment))
                #expect(client.bus == .session)
                await client.close()
                // Found through $XDG_RUNTIME_DIR/bus when the address is not set, as sd-bus does.
                let runtime = session.directory.path
                let viaRuntime = try #require(await DaemonClient.find(environment: ["XDG_RUNTIME_DIR": runtime, "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"]))
                #expect(viaRuntime.bus == .session && viaRuntime.address == "unix:path=\(runtime)/bus")
                await viaRuntime.close()
                await onSession.close()
                await onSystem.close()
            }
        }
    }

    @Test func anEmptyBusMeansNoDaemon() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            // Another name on the bus is not the daemon.
            let other = try await BusConnection.open(address: bus.address)
            try await other.requestName("org.joule.Other1")
            #expect(await DaemonClient.find(environment: Self.environment(bus.address)) == nil)
            await other.close()
        }
    }

    @Test func aMissingSocketMeansNoDaemonAtOnce() async throws {
        let start = ContinuousClock.now
        let environment = [
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/joule/session",
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/joule/system",
        ]
        #expect(await DaemonClient.find(environment: environment) == nil)
        #expect(await DaemonClient.find(environment: ["XDG_RUNTIME_DIR": "/nonexistent/joule", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/joule/system"]) == nil)
        // A bound, not a benchmark: no retry, no timeout is waited out.
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(DaemonClient.addresses(["XDG_RUNTIME_DIR": "/nonexistent/joule"]).map(\.1) == ["unix:path=/run/dbus/system_bus_socket"])
    }

    @Test func readsStatusStateAndSetsTheMode() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            var initial = EnergyBusState()
            initial.lowPowerMode = true
            initial.source = .manual
            initial.thermalState = .serious
            initial.onBattery = true
            initial.percentage = 42.5
            initial.warningLevel = .low
            let status = #"{"hello":"daemon"}"#
            let daemon = try await FakeDaemon(address: bus.address, initial: initial, status: status)
            let client = try #require(await DaemonClient.find(environment: Self.environment(bus.address)))
            #expect(try await client.status() == status)
            #expect(try await client.state() == initial)
            #expect(try await client.lowPowerOverride() == .on)
            try await client.setLowPowerMode(.auto)
            try await client.setLowPowerMode(.off)
            #expect(daemon.modes == [.auto, .off])
            // GetStatus that is not a status object names the key.
            do {
                _ = try await client.report()
                Issue.record("decoded \(status)")
            } catch {
                #expect("\(error)".contains("GetStatus") && "\(error)".contains("batteries: missing"), "\(error)")
            }
            await client.close()
            await daemon.close()
        }
    }

    @Test func accessDeniedReachesTheCaller() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await FakeDaemon(address: bus.address, refuse: true)
            let client = try #require(await DaemonClient.find(environment: Self.environment(bus.address)))
            do {
                try await client.setLowPowerMode(.on)
                Issue.record("not refused")
            } catch let error as BusError {
                #expect(error.remoteName == "org.freedesktop.DBus.Error.AccessDenied")
                #expect("\(error)".contains("Not authorized by polkit"))
            }
            await client.close()
            await daemon.close()
        }
    }

    /// A property of the wrong type is an error naming it.
    @Test func aMalformedPropertyIsNamed() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let server = try await BusConnection.open(address: bus.address)
            let good = EnergyBusState().properties
            let properties = good.map { name, value in
                name == "Percentage"
                    ? BusInterface.Property(name, "s") { .string("lots") }
                    : BusInterface.Property(name, value.signature) { value }
            }
            try await server.export(BusInterface(name: EnergyBus.interfaceName, properties: properties), at: EnergyBus.objectPath)
            try await server.requestName(EnergyBus.busName)
            let client = try #require(await DaemonClient.find(environment: Self.environment(bus.address)))
            do {
                _ = try await client.state()
                Issue.record("read a string percentage")
            } catch let error as BusError {
                guard case .unexpected(_, let detail) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(detail.contains("Percentage: expected d"), "\(detail)")
            }
            await client.close()
            await server.close()
        }
    }

    @Test func eventsDeliverSignalsAndPropertyChanges() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            let daemon = try await FakeDaemon(address: bus.address)
            let client = try #require(await DaemonClient.find(environment: Self.environment(bus.address)))
            var events = try await client.events(clock: FixedClock()).makeAsyncIterator()

            var next = EnergyBusState()
            next.lowPowerMode = true
            next.source = .manual
            next.warningLevel = .critical
            await daemon.service.update(next)
            await daemon.service.powerStateDidChange(lowPowerMode: true, reason: "manual-on")
            await daemon.service.thermalStateDidChange(state: .fair, previous: .nominal, cause: "thermal_zone0")

            #expect(await events.next() == .energy(TimedEvent(
                timestamp: 1000, event: .warningLevelChanged(level: .critical, previous: .none), lowPowerMode: true,
                thermalState: .nominal)))
            #expect(await events.next() == .state(next))
            #expect(await events.next() == .energy(TimedEvent(
                timestamp: 1000, event: .powerStateDidChange(lowPowerMode: true, reason: "manual-on"), lowPowerMode: true,
                thermalState: .nominal)))
            #expect(await events.next() == .energy(TimedEvent(
                timestamp: 1000, event: .thermalStateDidChange(state: .fair, previous: .nominal, cause: "thermal_zone0"),
                lowPowerMode: true, thermalState: .fair)))

            // The daemon leaving the bus ends the stream.
            await daemon.close()
            #expect(await events.next() == nil)
            await client.close()
        }
    }

    @Test func processInfoFollowsTheDaemon() async throws {
        try Self.requireDaemon()
        try await PrivateBusDaemon.with { bus in
            var initial = EnergyBusState()
            initial.thermalState = .fair
            let daemon = try await FakeDaemon(address: bus.address, initial: initial)
            let info = try await JouleProcessInfo.live(configuration: .init(), environment: Self.environment(bus.address))
            #expect(!info.isLowPowerModeEnabled)
            #expect(info.thermalState == .fair)
            var changes = info.lowPowerModeChanges.makeAsyncIterator()

            // A property change alone moves the value.
            var next = initial
            next.thermalState = .serious
            await daemon.service.update(next)
            let deadline = ContinuousClock.now + .seconds(10)
            while info.thermalState != .serious && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(info.thermalState == .serious)

            // The signal is the notification.
            next.lowPowerMode = true
            await daemon.service.update(next)
            await daemon.service.powerStateDidChange(lowPowerMode: true, reason: "manual-on")
            #expect(await changes.next() == true)
            #expect(info.isLowPowerModeEnabled)

            info.invalidate()
            await daemon.close()
        }
    }
}

/// Timestamps that do not move, so events compare equal.
struct FixedClock: JouleClock {
    func now() -> Double { 1000 }
    func sleep(until deadline: Double) async throws { try await Task.sleep(for: .seconds(max(0, deadline - 1000))) }
}
