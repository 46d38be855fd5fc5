import Foundation
import JouleHardware
import JouleDaemon
import JouleTesting
import Testing

/// PowerProfilesClient against the real power-profiles-daemon (see PowerProfilesDaemonProcess:
/// umockdev hides sysfs, a polkitd mock allows everything), for what the dbusmock template
/// cannot show. It runs where ppd is installed (or JOULE_PPD names a binary); scripts/install-deps.sh
/// does not install it, because Debian's tlp conflicts with it and apt would remove tlp.
@Suite(
    .serialized,
    .enabled("needs power-profiles-daemon, umockdev and python3-dbusmock") {
        await PowerProfilesDaemonProcess.isAvailable && PrivateBusDaemon.executable != nil
    })
struct RealPowerProfilesDaemonTests {
    static let reason = "Low Power Mode"

    @Test func aHoldSwitchesToPowerSaverUntilReleased() async throws {
        try await PrivateBusDaemon.with { daemon in
            let ppd = try await PowerProfilesDaemonProcess(address: daemon.address)
            defer { ppd.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))
            let client = try #require(await PowerProfilesClient.find(on: bus))
            #expect(try await client.activeProfile() == "balanced")

            let cookie = try await client.hold(profile: "power-saver", reason: Self.reason, applicationID: "joule")
            #expect(await recorder.waitFor(.activeProfile("power-saver")), "\(recorder.changes)")
            #expect(try await PowerProfilesClientTests.holds(client, on: bus) == [["Profile": "power-saver", "Reason": Self.reason, "ApplicationId": "joule"]])

            try await client.release(cookie: cookie)
            #expect(await recorder.waitFor(.activeProfile("balanced")), "\(recorder.changes)")
            #expect(try await PowerProfilesClientTests.holds(client, on: bus).isEmpty)
            // Newer ppd (not 0.12) tells the holder ProfileReleased even for its own
            // ReleaseProfile, before the profile it goes back to: the daemon must forget its
            // cookie before it releases, or it would take this for the user's choice.
            let withoutOwnRelease = recorder.changes.filter { $0 != .profileReleased(cookie: cookie) }
            #expect(withoutOwnRelease == [.activeProfile("power-saver"), .activeProfile("balanced")])
            await bus.close()
        }
    }

    @Test func aHoldIsDroppedWhenItsHolderGoes() async throws {
        try await PrivateBusDaemon.with { daemon in
            let ppd = try await PowerProfilesDaemonProcess(address: daemon.address)
            defer { ppd.stop() }
            let observer = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: observer))
            let holder = try await BusConnection.open(address: daemon.address)
            let client = try #require(await PowerProfilesClient.find(on: holder))
            _ = try await client.hold(profile: "power-saver", reason: Self.reason, applicationID: "joule")
            #expect(await recorder.waitFor(.activeProfile("power-saver")), "\(recorder.changes)")

            // As when joule is killed: its connection drops, and ppd lets the hold go.
            await holder.close()
            #expect(await recorder.waitFor(.activeProfile("balanced")), "\(recorder.changes)")
            let view = try #require(await PowerProfilesClient.find(on: observer))
            #expect(try await PowerProfilesClientTests.holds(view, on: observer).isEmpty)
            #expect(try await view.activeProfile() == "balanced")
            await observer.close()
        }
    }

    @Test func aUserProfileSwitchReleasesTheHoldFirst() async throws {
        try await PrivateBusDaemon.with { daemon in
            let ppd = try await PowerProfilesDaemonProcess(address: daemon.address)
            defer { ppd.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let recorder = ChangeRecorder(try await PowerProfilesClient.changes(on: bus))
            let client = try #require(await PowerProfilesClient.find(on: bus))
            let cookie = try await client.hold(profile: "power-saver", reason: Self.reason, applicationID: "joule")
            #expect(await recorder.waitFor(.activeProfile("power-saver")), "\(recorder.changes)")

            // The desktop's profile menu.
            let user = try await BusConnection.open(address: daemon.address)
            _ = try await user.call(
                destination: client.busName, path: client.path, interface: "org.freedesktop.DBus.Properties", member: "Set",
                arguments: [.string(client.interface), .string("ActiveProfile"), .variant(.string("balanced"))])
            #expect(await recorder.waitFor(.activeProfile("balanced")), "\(recorder.changes)")
            #expect(recorder.changes == [.activeProfile("power-saver"), .profileReleased(cookie: cookie), .activeProfile("balanced")])
            #expect(try await PowerProfilesClientTests.holds(client, on: bus).isEmpty)
            await user.close()
            await bus.close()
        }
    }
}
