import JouleHardware

/// A live transport as `BeaconTransportChooser` opened it, with what to tell the user once.
public struct OpenedBeaconTransport: Sendable {
    public var transport: any HCITransport
    /// `.hci` or `.bluez`, never `.auto`.
    public var kind: BeaconTransportKind
    public var adapter: String
    /// bluetoothd holds the adapter a raw HCI scan runs on: its own scans may disturb this one.
    public var warning: String?

    public var bluez: BlueZTransport? { transport as? BlueZTransport }

    /// The line said once on stderr, e.g. `transport bluez (hci0, through bluetoothd)`.
    public var description: String {
        "transport \(kind.rawValue) (\(adapter), \(kind == .bluez ? "through bluetoothd" : "raw HCI socket"))"
    }
}
