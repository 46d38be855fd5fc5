/// Something power-profiles-daemon (or a compatible owner of its names) told us.
package enum PowerProfilesChange: Sendable, Hashable {
    /// `ActiveProfile` changed (PropertiesChanged), e.g. the user picked `power-saver`.
    case activeProfile(String)
    /// The service dropped the hold with this cookie (`ProfileReleased`), e.g. because the user
    /// picked a profile: what joule records as a manual choice.
    case profileReleased(cookie: UInt32)
    /// `busName` got an owner (`present`) or lost it (NameOwnerChanged). A new owner knows
    /// nothing of holds taken from the old one, so a restart shows as false, then true (or a
    /// single true when the name passes directly to a new owner).
    case ownerChanged(busName: String, present: Bool)
}
