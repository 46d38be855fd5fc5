import Foundation
import JouleHardware
import JouleTesting
import Testing

/// The harness itself: it waits for the name, says why when the mock cannot start, and its
/// name is gone after stop().
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct DBusMockTests {
    @Test func aMockOwnsItsNameUntilStopped() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await DBusMock(.upower, address: daemon.address)
            let bus = try await BusConnection.open(address: daemon.address)
            #expect(try await DBusMock.hasOwner("org.freedesktop.UPower", on: bus))
            #expect(try await bus.property(destination: "org.freedesktop.UPower", path: "/org/freedesktop/UPower", interface: "org.freedesktop.UPower", name: "OnBattery") == .bool(false))
            mock.stop()
            #expect(await eventually { !mock.isRunning })
            #expect(try await DBusMock.hasOwner("org.freedesktop.UPower", on: bus) == false)
            await bus.close()
        }
    }

    @Test func anUnknownTemplateFailsWithPythonsOutput() async throws {
        try await PrivateBusDaemon.with { daemon in
            let missing = DBusMock.Template(name: "no_such_template", busName: "org.joule.Nothing", path: "/", interface: "org.joule.Nothing")
            do {
                _ = try await DBusMock(missing, address: daemon.address)
                Issue.record("a missing template started")
            } catch let failure as DBusMock.Failure {
                guard case .exited(let name, let status, let output) = failure else {
                    Issue.record("expected exited, got \(failure)")
                    return
                }
                #expect(name == "org.joule.Nothing" && status != 0)
                #expect(output.contains("no_such_template"), "\(output)")
            }
        }
    }
}
