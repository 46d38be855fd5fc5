import Foundation
import JouleHardware
import JouleDaemon
import JouleTesting
import Testing

/// PolkitAuthority against python3-dbusmock's polkitd template, which denies every action
/// until SetAllowed, on a private dbus-daemon per test.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct PolkitAuthorityTests {
    static let action = "org.joule.Energy1.set-low-power-mode"

    @Test func deniedUntilTheActionIsAllowed() async throws {
        try await PrivateBusDaemon.with { daemon in
            let polkit = try await DBusMock(.polkitd, address: daemon.address)
            defer { polkit.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let caller = try await BusConnection.open(address: daemon.address)
            let authority = PolkitAuthority(bus: bus)

            #expect(try await authority.checkAuthorization(busName: caller.uniqueName, action: Self.action, allowUserInteraction: false) == false)
            try await polkit.setAllowed([Self.action])
            #expect(try await authority.checkAuthorization(busName: caller.uniqueName, action: Self.action, allowUserInteraction: false))
            #expect(try await authority.checkAuthorization(busName: caller.uniqueName, action: Self.action, allowUserInteraction: true))
            // Only that action.
            #expect(
                try await authority.checkAuthorization(
                    busName: caller.uniqueName, action: "org.freedesktop.UPower.PowerProfiles.switch-profile",
                    allowUserInteraction: false) == false)
            await caller.close()
            await bus.close()
        }
    }

    @Test func withoutPolkitOnTheBusItIsUnavailable() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            do throws(PolkitError) {
                _ = try await PolkitAuthority(bus: bus).checkAuthorization(busName: bus.uniqueName, action: Self.action, allowUserInteraction: false)
                Issue.record("authorised without polkit")
            } catch {
                guard case .unavailable(let cause) = error else {
                    Issue.record("expected unavailable, got \(error)")
                    return
                }
                #expect(cause.remoteName == "org.freedesktop.DBus.Error.ServiceUnknown")
                #expect("\(error)".hasPrefix("polkit is not available"))
            }
            await bus.close()
        }
    }

    @Test func aHungPolkitFailsWithinTheTimeout() async throws {
        try await PrivateBusDaemon.with { daemon in
            let polkit = try await DBusMock(.polkitd, address: daemon.address)
            defer { polkit.stop() }
            try await polkit.call("SimulateHang", arguments: [.bool(true)])
            let bus = try await BusConnection.open(address: daemon.address)
            let started = ContinuousClock.now
            do throws(PolkitError) {
                _ = try await PolkitAuthority(bus: bus, timeout: .seconds(1))
                    .checkAuthorization(busName: bus.uniqueName, action: Self.action, allowUserInteraction: false)
                Issue.record("a hung polkit answered")
            } catch {
                guard case .failed = error else {
                    Issue.record("expected failed, got \(error)")
                    return
                }
                #expect("\(error)".hasPrefix("polkit failed"))
            }
            #expect(ContinuousClock.now - started < .seconds(5))
            await bus.close()
        }
    }
}
