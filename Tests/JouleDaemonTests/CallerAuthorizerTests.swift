import Foundation
import JouleWire
import JouleHardware
import JouleDaemon
import JouleTesting
import Testing

/// Who may call SetLowPowerMode: polkit on the system bus (root only without it), the session's
/// user on a session bus. Real polkit answers come from dbusmock's polkitd on a private bus;
/// the caller's uid is injected where the test needs one other than its own.
@Suite(.serialized)
struct CallerAuthorizerTests {
    static let action = EnergyBus.setLowPowerModeAction

    /// The error `authorize` threw, or nil when it allowed the caller.
    static func denial(_ authorizer: CallerAuthorizer, _ sender: String) async -> BusMethodError? {
        do {
            try await authorizer.authorize(sender: sender)
            return nil
        } catch {
            return error
        }
    }

    static func authorizer(_ mode: CallerAuthorizer.Mode, uid: UInt32, polkit: Result<Bool, PolkitError>) -> CallerAuthorizer {
        CallerAuthorizer(mode: mode, uid: { _ in uid }, polkit: { _ throws(PolkitError) in try polkit.get() })
    }

    @Test func theActionIsTheOneTheContractNames() {
        #expect(Self.action == "org.joule.Energy1.set-low-power-mode")
    }

    /// The charge-limit authorizer asks polkit about its own action, and each refusal names it.
    @Test(.enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
    func eachActionIsAskedForAndNamed() async throws {
        #expect(EnergyBus.setChargeLimitAction == "org.joule.Energy1.set-charge-limit")
        try await PrivateBusDaemon.with { daemon in
            let polkit = try await DBusMock(.polkitd, address: daemon.address)
            defer { polkit.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let caller = try await BusConnection.open(address: daemon.address)
            let charge = CallerAuthorizer(mode: .system, bus: bus, action: EnergyBus.setChargeLimitAction, what: "change the battery charge limit")
            let lowPower = CallerAuthorizer(mode: .system, bus: bus)
            try await polkit.setAllowed([Self.action])
            #expect(await Self.denial(lowPower, caller.uniqueName) == nil)
            let denied = try #require(await Self.denial(charge, caller.uniqueName))
            #expect(denied.name == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(denied.message == "org.joule.Energy1.set-charge-limit: not authorized by polkit", "\(denied.message)")
            try await polkit.setAllowed([EnergyBus.setChargeLimitAction])
            #expect(await Self.denial(charge, caller.uniqueName) == nil)
            #expect(await Self.denial(lowPower, caller.uniqueName) != nil)
            await caller.close()
            await bus.close()
        }
        let session = CallerAuthorizer(
            mode: .session(uid: 1000), action: EnergyBus.setChargeLimitAction, what: "change the battery charge limit",
            uid: { _ in 1001 }, polkit: { _ throws(PolkitError) in true })
        let foreign = try #require(await Self.denial(session, ":1.9"))
        #expect(foreign.message == "org.joule.Energy1.set-charge-limit: only uid 1000, whose session this is, or root may change the battery charge limit; the caller is uid 1001", "\(foreign.message)")
    }

    @Test(.enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
    func systemModeAsksPolkitAboutTheCaller() async throws {
        try await PrivateBusDaemon.with { daemon in
            let polkit = try await DBusMock(.polkitd, address: daemon.address)
            defer { polkit.stop() }
            let bus = try await BusConnection.open(address: daemon.address)
            let caller = try await BusConnection.open(address: daemon.address)
            let authorizer = CallerAuthorizer(mode: .system, bus: bus)

            // Denied by polkit even for root: polkit's answer stands when it gives one.
            let denied = try #require(await Self.denial(authorizer, caller.uniqueName))
            #expect(denied.name == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(denied.message.contains(Self.action) && denied.message.contains("not authorized by polkit"), "\(denied.message)")

            try await polkit.setAllowed([Self.action])
            #expect(await Self.denial(authorizer, caller.uniqueName) == nil)
            await caller.close()
            await bus.close()
        }
    }

    @Test(.enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon: run scripts/install-deps.sh"))
    func withoutPolkitOnlyRootMayCall() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let caller = try await BusConnection.open(address: daemon.address)
            // The real uid from the bus daemon: this process's.
            let real = await Self.denial(CallerAuthorizer(mode: .system, bus: bus), caller.uniqueName)
            if getuid() == 0 { #expect(real == nil) } else { #expect(real?.name == "org.freedesktop.DBus.Error.AccessDenied") }

            // A non-root caller, through the real (absent) polkit.
            let polkit = PolkitAuthority(bus: bus)
            let user = CallerAuthorizer(
                mode: .system, uid: { _ in 1000 },
                polkit: { sender throws(PolkitError) in
                    try await polkit.checkAuthorization(busName: sender, action: Self.action, allowUserInteraction: false)
                })
            let denied = try #require(await Self.denial(user, caller.uniqueName))
            #expect(denied.name == "org.freedesktop.DBus.Error.AccessDenied")
            #expect(denied.message == "\(Self.action): polkit is not available, so only root may set Low Power Mode")
            await caller.close()
            await bus.close()
        }
    }

    @Test func aFailingPolkitRefusesAllButRoot() async throws {
        let failure = PolkitError.failed(.remote(operation: "CheckAuthorization", target: "org.freedesktop.PolicyKit1", name: "org.freedesktop.DBus.Error.NoReply", message: "no reply"))
        let user = try #require(await Self.denial(Self.authorizer(.system, uid: 1000, polkit: .failure(failure)), ":1.9"))
        #expect(user.name == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(user.message.contains(Self.action) && user.message.contains("NoReply"), "\(user.message)")
        #expect(await Self.denial(Self.authorizer(.system, uid: 0, polkit: .failure(failure)), ":1.9") == nil)
        #expect(await Self.denial(Self.authorizer(.system, uid: 0, polkit: .failure(.unavailable(.closed(operation: "x")))), ":1.9") == nil)
        // polkit's yes and no decide for everyone when it answers.
        #expect(await Self.denial(Self.authorizer(.system, uid: 1000, polkit: .success(true)), ":1.9") == nil)
        #expect(await Self.denial(Self.authorizer(.system, uid: 1000, polkit: .success(false)), ":1.9") != nil)
    }

    @Test func sessionModeAdmitsTheSessionsUserAndRoot() async throws {
        let never: Result<Bool, PolkitError> = .failure(.unavailable(.closed(operation: "polkit must not be asked")))
        #expect(await Self.denial(Self.authorizer(.session(uid: 1000), uid: 1000, polkit: never), ":1.5") == nil)
        #expect(await Self.denial(Self.authorizer(.session(uid: 1000), uid: 0, polkit: never), ":1.5") == nil)
        let other = try #require(await Self.denial(Self.authorizer(.session(uid: 1000), uid: 1001, polkit: never), ":1.5"))
        #expect(other.name == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(other.message.contains(Self.action) && other.message.contains("uid 1000") && other.message.contains("uid 1001"), "\(other.message)")
    }

    @Test func anUnknownCallerIsRefused() async throws {
        let authorizer = CallerAuthorizer(
            mode: .session(uid: 1000), uid: { _ throws(BusError) in throw .remote(operation: "GetConnectionUnixUser", target: ":1.77", name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "gone") },
            polkit: { _ in true })
        let denied = try #require(await Self.denial(authorizer, ":1.77"))
        #expect(denied.name == "org.freedesktop.DBus.Error.AccessDenied")
        #expect(denied.message.contains("cannot tell who :1.77 is"))
    }

    @Test(.enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon: run scripts/install-deps.sh"))
    func sessionModeWithRealCredentials() async throws {
        try await PrivateBusDaemon.with { daemon in
            let bus = try await BusConnection.open(address: daemon.address)
            let caller = try await BusConnection.open(address: daemon.address)
            #expect(await Self.denial(CallerAuthorizer(mode: .session(uid: getuid()), bus: bus), caller.uniqueName) == nil)
            // Another session's daemon refuses us unless we are root.
            let foreign = await Self.denial(CallerAuthorizer(mode: .session(uid: 4242), bus: bus), caller.uniqueName)
            #expect((foreign == nil) == (getuid() == 0))
            await caller.close()
            await bus.close()
        }
    }
}
