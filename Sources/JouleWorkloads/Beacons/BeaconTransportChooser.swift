import JouleHardware

/// Opens the link a live beacon run asked for. `auto` takes BlueZ when bluetoothd owns
/// `org.bluez` on the system bus and has the adapter (`hciN`, or any powered one), because raw
/// LE scan commands behind bluetoothd's back fight the kernel's own scans; else HCI.
public enum BeaconTransportChooser {
    public typealias BusOpener = @Sendable () async throws(BusError) -> BusConnection

    public static let systemBus: BusOpener = { () async throws(BusError) in try await BusConnection.system() }

    public static func open(_ kind: BeaconTransportKind, adapter: String?, systemBus: BusOpener = BeaconTransportChooser.systemBus)
        async throws(HCITransportError) -> OpenedBeaconTransport
    {
        switch kind {
        case .bluez:
            let bus: BusConnection
            do throws(BusError) { bus = try await systemBus() } catch {
                throw .bluetoothdMissing("cannot reach the system bus: \(error)")
            }
            let transport = try await BlueZTransport.open(bus: bus, adapter: adapter)
            return OpenedBeaconTransport(transport: transport, kind: .bluez, adapter: transport.adapterName)
        case .auto:
            if let bus = try? await systemBus() {
                if await holds(adapter, on: bus) {
                    let transport = try await BlueZTransport.open(bus: bus, adapter: adapter)
                    return OpenedBeaconTransport(transport: transport, kind: .bluez, adapter: transport.adapterName)
                }
                await bus.close()
            }
            let live = try LiveHCITransport(adapter: adapter)
            return OpenedBeaconTransport(transport: live, kind: .hci, adapter: live.adapterName)
        case .hci:
            let live = try LiveHCITransport(adapter: adapter)
            var opened = OpenedBeaconTransport(transport: live, kind: .hci, adapter: live.adapterName)
            if let bus = try? await systemBus() {
                if await holds(live.adapterName, on: bus) {
                    opened.warning =
                        "bluetoothd holds \(live.adapterName): its own LE scans may refuse or switch off this one (use --transport bluez to scan through it)"
                }
                await bus.close()
            }
            return opened
        }
    }

    /// Whether bluetoothd runs on `bus` and has `adapter` (nil: any adapter).
    static func holds(_ adapter: String?, on bus: BusConnection) async -> Bool {
        guard await BlueZTransport.isRunning(on: bus), let adapters = try? await BlueZTransport.adapters(on: bus) else {
            return false
        }
        return adapters.contains { adapter == nil || $0.name == adapter }
    }
}
