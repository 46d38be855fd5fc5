import JouleWire
import JouleHardware

/// Who may call a method that changes the machine: `SetLowPowerMode`
/// (`org.joule.Energy1.set-low-power-mode`), `SetChargeLimit` and `ChargeFullOnce`
/// (`org.joule.Energy1.set-charge-limit`). On the system bus: whoever polkit authorises for the
/// action (as power-profiles-daemon authorises a profile switch), and only root when polkit is
/// not on the bus. On a session bus: that session's user. Each refusal names the action.
package struct CallerAuthorizer: Sendable {
    package enum Mode: Sendable, Hashable {
        case system
        /// The session's user (the daemon's own uid).
        case session(uid: UInt32)
    }


    package let mode: Mode
    /// The polkit action asked about, named in every refusal.
    package let action: String
    /// What the action does, for refusals: `set Low Power Mode`.
    package let what: String
    private let uid: @Sendable (String) async throws(BusError) -> UInt32
    private let polkit: @Sendable (String) async throws(PolkitError) -> Bool

    /// `uid` maps a sender's unique name to its uid; `polkit` asks whether the sender may do
    /// `action`. Tests inject both.
    package init(
        mode: Mode, action: String = EnergyBus.setLowPowerModeAction, what: String = "set Low Power Mode",
        uid: @escaping @Sendable (String) async throws(BusError) -> UInt32,
        polkit: @escaping @Sendable (String) async throws(PolkitError) -> Bool
    ) {
        self.mode = mode
        self.action = action
        self.what = what
        self.uid = uid
        self.polkit = polkit
    }

    /// Uids from `bus`'s daemon (the bus the caller called on), and, in `.system` mode, polkit
    /// on the same bus. Like ppd, it never asks polkit to interact: `allow_active` needs no
    /// password.
    package init(mode: Mode, bus: BusConnection, action: String = EnergyBus.setLowPowerModeAction, what: String = "set Low Power Mode") {
        let authority = PolkitAuthority(bus: bus)
        self.init(
            mode: mode, action: action, what: what,
            uid: { sender throws(BusError) in try await bus.credentials(of: sender).uid },
            polkit: { sender throws(PolkitError) in
                try await authority.checkAuthorization(busName: sender, action: action, allowUserInteraction: false)
            })
    }

    /// Returns when `sender` may do the action; otherwise throws
    /// `org.freedesktop.DBus.Error.AccessDenied` saying why.
    package func authorize(sender: String) async throws(BusMethodError) {
        switch mode {
        case .session(let owner):
            let caller = try await callerUID(sender)
            guard caller == owner || caller == 0 else {
                throw .accessDenied("\(action): only uid \(owner), whose session this is, or root may \(what); the caller is uid \(caller)")
            }
        case .system:
            let authorized: Bool
            do {
                authorized = try await polkit(sender)
            } catch {
                // polkitd itself authorises root for everything, so root keeps that right
                // when polkit is missing or broken; everyone else is refused.
                if try await callerUID(sender) == 0 { return }
                if case .unavailable = error {
                    throw .accessDenied("\(action): polkit is not available, so only root may \(what)")
                }
                throw .accessDenied("\(action): \(error)")
            }
            guard authorized else { throw .accessDenied("\(action): not authorized by polkit") }
        }
    }

    private func callerUID(_ sender: String) async throws(BusMethodError) -> UInt32 {
        do {
            return try await uid(sender)
        } catch {
            throw .accessDenied("\(action): cannot tell who \(sender) is: \(error)")
        }
    }
}
