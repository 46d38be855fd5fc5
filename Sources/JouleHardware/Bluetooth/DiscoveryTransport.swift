/// A transport whose radio a daemon drives: joule asks for discovery on or off and never
/// sends an HCI command (BlueZ's `StartDiscovery`/`StopDiscovery`). The controller's scan
/// window and interval are the daemon's to choose, so while discovery is on it counts as
/// listening all the time.
public protocol DiscoveryTransport: HCITransport {
    func setDiscovering(_ on: Bool) async throws(HCITransportError)
}
