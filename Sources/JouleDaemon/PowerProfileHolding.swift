import JouleHardware

/// What Low Power Mode needs from power-profiles-daemon (or tlp-pd, tuned-ppd): a hold on
/// the power-saver profile, which the service drops by itself if the holder dies.
package protocol PowerProfileHolding: Sendable {
    /// The owner of the well-known name, for logs.
    var busName: String { get }
    func activeProfile() async throws(BusError) -> String
    func hold(profile: String, reason: String, applicationID: String) async throws(BusError) -> UInt32
    func release(cookie: UInt32) async throws(BusError)
}

extension PowerProfilesClient: PowerProfileHolding {}
