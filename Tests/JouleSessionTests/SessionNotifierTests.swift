import Foundation
import JouleWire
import JouleHardware
import JouleSession
import JouleTesting
import Testing

/// The notifier against python3-dbusmock's notification_daemon template on a private session
/// bus, with a stand-in org.joule.Energy1 (a dbusmock object with SetLowPowerMode) answering
/// the actions.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct SessionNotifierTests {
    struct Rig {
        let server: DBusMock
        let energy: DBusMock
        let bus: BusConnection
        let notifier: SessionNotifier
        let client: NotificationsClient
    }

    func withRig(switches: NotificationSwitches = NotificationSwitches(), _ body: (Rig) async throws -> Void) async throws {
        try await PrivateBusDaemon.with { daemon in
            let server = try await DBusMock(.notificationDaemon, address: daemon.address)
            defer { server.stop() }
            let energy = try await DBusMock(
                .bare(busName: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName), address: daemon.address)
            defer { energy.stop() }
            try await energy.addMethod(interface: EnergyBus.interfaceName, name: "SetLowPowerMode", in: "s", out: "", code: "")
            let bus = try await BusConnection.open(address: daemon.address)
            let client = NotificationsClient(bus: bus)
            let notifier = SessionNotifier(
                client: client, policy: NotificationPolicy(switches: switches),
                setLowPowerMode: { mode in
                    _ = try await bus.call(
                        destination: EnergyBus.busName, path: EnergyBus.objectPath, interface: EnergyBus.interfaceName,
                        member: "SetLowPowerMode", arguments: [.string(mode)])
                }, log: { line in Issue.record("logged: \(line)") })
            try await body(Rig(server: server, energy: energy, bus: bus, notifier: notifier, client: client))
            await bus.close()
        }
    }

    /// One Notify call's arguments by name.
    struct Notify {
        var replaces: UInt32?
        var summary: String?
        var actions: [String]
        var urgency: BusValue?

        init(_ arguments: [BusValue]) {
            replaces = arguments.count > 1 ? arguments[1].uint32Value : nil
            summary = arguments.count > 3 ? arguments[3].stringValue : nil
            if arguments.count > 5, case .array(_, let items) = arguments[5] { actions = items.compactMap(\.stringValue) } else { actions = [] }
            urgency = arguments.count > 6 ? arguments[6].stringKeyedEntries?.first { $0.0 == "urgency" }?.1.unwrapped : nil
        }
    }

    @Test func lowPowerModeTurningItselfOnOffersTurnOffAndTheActionCallsTheDaemon() async throws {
        try await withRig { rig in
            let following = Task { [events = try await rig.client.events(), notifier = rig.notifier] in await notifier.follow(events) }
            defer { following.cancel() }
            await rig.notifier.handle(.lowPowerMode(on: true, reason: "battery-low"))
            let calls = try await rig.server.methodCalls("Notify")
            #expect(calls.count == 1)
            let call = try #require(calls.first)
            #expect(call.first == .string("Joule"))
            #expect(call.count == 8 && call[7] == .int32(-1))
            let notify = Notify(call)
            #expect(notify.replaces == 0 && notify.summary == "Low Power Mode turned on")
            #expect(notify.actions == ["turn-off-low-power-mode", "Turn Off"])
            #expect(notify.urgency == .byte(1))
            let id = try #require(await rig.notifier.id(of: .lowPowerMode))
            // Someone else's notification's action is not ours to answer.
            try await rig.server.emitSignal(
                interface: NotificationsClient.interface, name: "ActionInvoked", signature: "us",
                arguments: [.uint32(id + 100), .string("turn-off-low-power-mode")])
            try await rig.server.emitSignal(
                interface: NotificationsClient.interface, name: "ActionInvoked", signature: "us",
                arguments: [.uint32(id), .string("turn-off-low-power-mode")])
            #expect(try await eventually { try await rig.energy.methodCalls("SetLowPowerMode").count >= 1 })
            #expect(try await rig.energy.methodCalls("SetLowPowerMode") == [[.string("off")]])
            // The user's turning it off ends the episode: its notification is closed.
            await rig.notifier.handle(.lowPowerMode(on: false, reason: "manual-off"))
            #expect(try await rig.server.methodCalls("CloseNotification").count == 1)
        }
    }

    @Test func turnedOffWhenChargedReplacesTheOnNotificationAndOffersTheReverse() async throws {
        try await withRig { rig in
            let following = Task { [events = try await rig.client.events(), notifier = rig.notifier] in await notifier.follow(events) }
            defer { following.cancel() }
            await rig.notifier.handle(.lowPowerMode(on: true, reason: "battery-low"))
            let first = try #require(await rig.notifier.id(of: .lowPowerMode))
            await rig.notifier.handle(.lowPowerMode(on: false, reason: "charged"))
            let calls = try await rig.server.methodCalls("Notify").map(Notify.init)
            #expect(calls.count == 2)
            #expect(calls.last?.replaces == first && calls.last?.summary == "Low Power Mode turned off")
            #expect(calls.last?.actions == ["turn-on-low-power-mode", "Turn On Low Power Mode"])
            #expect(calls.last?.urgency == .byte(0))
            try await rig.server.emitSignal(
                interface: NotificationsClient.interface, name: "ActionInvoked", signature: "us",
                arguments: [.uint32(first), .string("turn-on-low-power-mode")])
            #expect(try await eventually { try await rig.energy.methodCalls("SetLowPowerMode") == [[.string("on")]] })
            // The next time is a new episode: a new notification.
            await rig.notifier.handle(.lowPowerMode(on: true, reason: "battery-low"))
            #expect(try await rig.server.methodCalls("Notify").map(Notify.init).last?.replaces == 0)
        }
    }

    @Test func batteryTiersReplaceOneNotificationAndNoneClosesIt() async throws {
        try await withRig { rig in
            await rig.notifier.handle(.warningLevel("low", percentage: 9.6))
            let id = try #require(await rig.notifier.id(of: .battery))
            await rig.notifier.handle(.warningLevel("low", percentage: 9.0))
            await rig.notifier.handle(.warningLevel("critical", percentage: 4))
            await rig.notifier.handle(.warningLevel("action", percentage: 2))
            let calls = try await rig.server.methodCalls("Notify").map(Notify.init)
            #expect(calls.map(\.summary) == ["Battery low", "Battery critically low", "Battery nearly empty"])
            #expect(calls.map(\.replaces) == [0, id, id])
            #expect(calls.map(\.urgency) == [.byte(1), .byte(2), .byte(2)])
            #expect(calls.first?.actions == ["turn-on-low-power-mode", "Turn On Low Power Mode"])
            await rig.notifier.handle(.warningLevel("none", percentage: 30))
            let closes = try await rig.server.methodCalls("CloseNotification")
            // The mock hands its recorded arguments back as plain numbers (its template declares
            // CloseNotification's id `i`; the specification, and we, send `u`).
            #expect(closes.count == 1 && closes.first?.first?.description == "\(id)", "\(closes)")
            #expect(await rig.notifier.id(of: .battery) == nil)
        }
    }

    @Test func thermalSeriousThenCriticalThenCoolAndKillsAndSwitchedOffKinds() async throws {
        var switches = NotificationSwitches()
        switches.thermal = true
        switches.battery = false
        switches.transfers = true
        try await withRig(switches: switches) { rig in
            await rig.notifier.handle(.warningLevel("critical", percentage: 3))
            await rig.notifier.handle(.thermalState("serious"))
            await rig.notifier.handle(.thermalState("critical"))
            await rig.notifier.handle(.cpuMonitorKill(process: "ffmpeg", reportID: "20261129T121500-ffmpeg-4242"))
            await rig.notifier.handle(.transferBatchFinished(completed: 3, failed: 0))
            let calls = try await rig.server.methodCalls("Notify").map(Notify.init)
            #expect(calls.map(\.summary) == [
                "The computer is hot", "The computer is critically hot", "“ffmpeg” was stopped", "3 background transfers finished",
            ])
            #expect(calls.map(\.urgency) == [.byte(1), .byte(2), .byte(1), .byte(0)])
            let thermal = try #require(await rig.notifier.id(of: .thermal))
            #expect(calls[0].replaces == 0 && calls[1].replaces == thermal)
            let kill = try #require(try await rig.server.methodCalls("Notify").dropLast().last)
            #expect(kill.count > 4 && kill[4].stringValue?.contains("20261129T121500-ffmpeg-4242") == true)
            await rig.notifier.handle(.thermalState("fair"))
            #expect(try await rig.server.methodCalls("CloseNotification").count == 1)
        }
    }
}
