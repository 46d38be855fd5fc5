import JouleHardware

/// polkit's authority on the system bus, asked as power-profiles-daemon asks it: about the
/// caller's unique bus name (`system-bus-name`), never about a pid, which could be reused.
package struct PolkitAuthority: Sendable {
    package static let busName = "org.freedesktop.PolicyKit1"
    package static let path = "/org/freedesktop/PolicyKit1/Authority"
    package static let interface = "org.freedesktop.PolicyKit1.Authority"

    private let bus: BusConnection
    /// How long one check may take. Without user interaction (as SetLowPowerMode asks) polkitd
    /// answers in milliseconds, so this only bounds a hung polkitd. 30 s is longer than the 25 s a
    /// D-Bus caller waits by default, so a check is never cut short while its caller still
    /// listens; interactive checks (a password dialog) may want longer.
    package let timeout: Duration

    package init(bus: BusConnection, timeout: Duration = .seconds(30)) {
        self.bus = bus
        self.timeout = timeout
    }

    /// CheckAuthorization((sa{sv}) subject, s action, a{ss} details, u flags, s cancellation)
    /// → (bba{ss}): whether `sender` (a unique name such as `:1.42`) may do `action`.
    package func checkAuthorization(busName sender: String, action: String, allowUserInteraction: Bool)
        async throws(PolkitError) -> Bool
    {
        let subject = BusValue.structure([
            .string("system-bus-name"), .variantDictionary([("name", .string(sender))]),
        ])
        let reply: [BusValue]
        do {
            reply = try await bus.call(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: "CheckAuthorization",
                arguments: [
                    subject, .string(action), .stringDictionary([]), .uint32(allowUserInteraction ? 1 : 0), .string(""),
                ],
                timeout: timeout)
        } catch {
            if let name = error.remoteName, PolkitError.absentNames.contains(name) { throw .unavailable(error) }
            throw .failed(error)
        }
        guard reply.count == 1, case .structure(let fields) = reply[0], fields.count == 3,
            let authorized = fields[0].boolValue
        else { throw .badReply(reply) }
        return authorized
    }
}
