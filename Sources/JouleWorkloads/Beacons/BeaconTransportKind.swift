/// The link a beacon run scans over: `--transport` and the daemon's `transport` key.
public enum BeaconTransportKind: String, Sendable, CaseIterable {
    /// BlueZ when bluetoothd is on the system bus and has the adapter, else HCI.
    case auto
    /// A raw HCI socket (bare boards, or bluetoothd stopped).
    case hci
    /// bluetoothd's D-Bus API.
    case bluez
}
