import Foundation
import JouleWire
import JouleHardware
import JouleEnergy
import JouleSession
import JouleTesting
import JouleDaemonTesting
import Testing

/// The agent's wiring: a stand-in org.joule.Energy1 (dbusmock) announcing Low Power Mode, a
/// real dconf and dbusmock's notification server, all on one private bus that plays both the
/// session and the system bus.
@Suite(.serialized, .enabled("needs dbus-daemon, python3-dbusmock, dconf-service, gsettings: run scripts/install-deps.sh") { await DConfRig.usableWithDBusMock() })
struct SessionAgentTests {
    @Test func lowPowerModeFromTheDaemonReachesTheSessionAndStoppingRestoresIt() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let server = try await DBusMock(.notificationDaemon, address: rig.bus.address)
        defer { server.stop() }
        let energy = try await DBusMock(
            .bare(busName: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName), address: rig.bus.address)
        defer { energy.stop() }
        try await energy.addProperties(interface: EnergyBus.interfaceName, [("LowPowerMode", .bool(false))])
        var environment = rig.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = rig.bus.address
        let (signals, stop) = AsyncStream.makeStream(of: TerminationSignal.self)
        let log = LogLines()
        let agent = Task { [environment, state = rig.stateDirectory, sink = log.sink] in
            try await SessionAgent.run(
                settings: SessionSettings(), environment: environment, stateDirectory: StateDirectory(path: state),
                root: "/nonexistent", until: signals, log: sink)
        }
        // Sent until heard: nothing outside tells when the agent's match is in place, and a
        // repeat is a no-op for both engines.
        #expect(try await eventually(every: .milliseconds(100)) {
            try await energy.emitSignal(
                interface: EnergyBus.interfaceName, name: "PowerStateDidChange", signature: "bs",
                arguments: [.bool(true), .string("battery-low")])
            return try await rig.gsettings(["get", "org.gnome.desktop.interface", "enable-animations"]) == "false"
        })
        #expect(try await eventually { try await server.methodCalls("Notify").count == 1 })
        stop.yield(.terminate)
        try await agent.value
        #expect(try await rig.gsettings(["get", "org.gnome.desktop.interface", "enable-animations"]) == "true")
        #expect(log.all == [
            "session: no window focus to follow (no focus source: neither SWAYSOCK nor I3SOCK (sway/i3 IPC) nor DISPLAY (X11) is set); the foreground is left to joule app",
            "session: SIGTERM, restoring the session's settings and exiting",
        ], "\(log.all)")
    }

    @Test func aDaemonStartingLaterIsCaughtUpWith() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        var environment = rig.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = rig.bus.address
        let (signals, stop) = AsyncStream.makeStream(of: TerminationSignal.self)
        let log = LogLines()
        let agent = Task { [environment, state = rig.stateDirectory, sink = log.sink] in
            try await SessionAgent.run(
                settings: SessionSettings(), environment: environment, stateDirectory: StateDirectory(path: state),
                root: "/nonexistent", until: signals, log: sink)
        }
        #expect(await eventually { log.all.contains { $0.contains("is on neither bus yet") } })
        // The daemon appears with Low Power Mode already on (the real EnergyService object,
        // exported before it takes the name, as joule daemon does).
        var state = EnergyBusState()
        state.lowPowerMode = true
        let daemon = try await StandInEnergyDaemon(address: rig.bus.address, initial: state)
        #expect(try await eventually { try await rig.gsettings(["get", "org.gnome.desktop.interface", "enable-animations"]) == "false" })
        stop.yield(.terminate)
        try await agent.value
        await daemon.close()
        #expect(try await rig.gsettings(["get", "org.gnome.desktop.interface", "enable-animations"]) == "true")
    }
}
