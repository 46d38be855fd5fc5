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

    /// The daemon's own `SleepFlagged` encoding (the real EnergyService of a stand-in: `joule
    /// daemon` flags only sleeps of 10 minutes or more on its wall clock) through the agent to
    /// the notification server.
    @Test func aFlaggedSleepFromTheDaemonIsNotified() async throws {
        let rig = try await DConfRig()
        defer { rig.stop() }
        let server = try await DBusMock(.notificationDaemon, address: rig.bus.address)
        defer { server.stop() }
        let daemon = try await StandInEnergyDaemon(address: rig.bus.address)
        var environment = rig.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = rig.bus.address
        let (signals, stop) = AsyncStream.makeStream(of: TerminationSignal.self)
        let agent = Task { [environment, state = rig.stateDirectory] in
            try await SessionAgent.run(
                settings: SessionSettings(), environment: environment, stateDirectory: StateDirectory(path: state),
                root: "/nonexistent", until: signals, log: { _ in })
        }
        let record = SleepRecord(
            start: 1_764_400_000, end: 1_764_428_800, energyBeforeWh: 50, energyAfterWh: 44, drainPercentPerHour: 3,
            drainW: 0.75, wakeReason: "ACPI LID0 (wakeup_count +1)", mode: "deep")
        #expect(record.isFlagged)
        // Sent until heard, as above: the same sleep again is the same episode, shown once.
        #expect(try await eventually(every: .milliseconds(100)) {
            await daemon.sleepFlagged(record)
            return try await !server.methodCalls("Notify").isEmpty
        })
        stop.yield(.terminate)
        try await agent.value
        await daemon.close()
        let calls = try await server.methodCalls("Notify")
        #expect(calls.count == 1, "\(calls)")
        let summary = record.summary
        #expect(calls.first.map { $0.count > 4 ? [$0[3].stringValue, $0[4].stringValue] : [] }
            == ["The battery drained while asleep", summary.prefix(1).uppercased() + summary.dropFirst() + "."], "\(calls)")
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
