import JouleWire
import JouleHardware

/// Who may call `SetLowPowerMode`. On the system bus: whoever polkit authorises for
/// `org.joule.Energy1.set-low-power-mode` (as power-profiles-daemon authorises a profile
/// switch), and only root when polkit is not on the bus. On a session bus: that session's user.
package struct CallerAuthorizer: Sendable {
    package enum Mode: Sendable, Hashable {
        case system
        /// The session's user (the daemon's own uid).
        case session(uid: UInt32)
    }


    package let mode: Mode
    private let uid: @Sendable (String) async throws(BusError) -> UInt32
    private let polkit: @Sendable (String) async throws(PolkitError) -> Bool

    /// `uid` maps a sender's unique name to its uid; `polkit` asks whether the sender may do
    /// `action`. Tests inject both.
    package init(
        mode: Mode, uid: @escaping @Sendable (String) async throws(BusError) -> UInt32,
        polkit: @escaping @Sendable (String) async throws(PolkitError) -> Bool
    ) {
        self.mode = mode
        self.uid = uid
        self.polkit = polkit
    }

    /// Uids from `bus`'s daemon (the bus the caller called on), and, in `.system` mode, polkit
    /// on the same bus. Like ppd, it never asks polkit to interact: `allow_active` needs no
    /// password.
    package init(mode: Mode, bus: BusConnection) {
        let authority = PolkitAuthority(bus: bus)
        self.init(
            mode: mode,
            uid: { sender throws(BusError) in try await bus.credentials(of: sender).uid },
            polkit: { sender throws(PolkitError) in
                try await authority.checkAuthorization(busName: sender, action: EnergyBus.setLowPowerModeAction, allowUserInteraction: false)
            })
    }

    /// Returns when `sender` may set Low Power Mode; otherwise throws
    /// `org.freedesktop.DBus.Error.AccessDenied` saying why.
    package func authorize(sender: String) async throws(BusMethodError) {
        switch mode {
        case .session(let owner):
            let caller = try await callerUID(sender)
            guard caller == owner || caller == 0 else {
                throw .accessDenied("\(EnergyBus.setLowPowerModeAction): only uid \(owner), whose session this is, or root may set Low Power Mode; the caller is uid \(caller)")
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
                    throw .accessDenied("\(EnergyBus.setLowPowerModeAction): polkit is not available, so only root may set Low Power Mode")
                }
                throw .accessDenied("\(EnergyBus.setLowPowerModeAction): \(error)")
            }
            guard authorized else { throw .accessDenied("\(EnergyBus.setLowPowerModeAction): not authorized by polkit") }
        }
    }

    private func callerUID(_ sender: String) async throws(BusMethodError) -> UInt32 {
        do {
            return try await uid(sender)
        } catch {
            throw .accessDenied("\(EnergyBus.setLowPowerModeAction): cannot tell who \(sender) is: \(error)")
        }
    }
}
