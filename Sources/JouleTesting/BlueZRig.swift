import JouleWire
import JouleHardware

/// bluetoothd (python3-dbusmock's bluez5 template) on a private bus with a BlueZ transport on
/// hci0, for the transport's tests and the engines' above it.
public enum BlueZRig {
    public static let adapterPath = DBusMock.bluezAdapterPath
    public static let devicePath = adapterPath + "/dev_C0_FF_EE_00_00_01"
    public static let uuid = DBusMock.beaconUUID
    public static let uuidBytes = DBusMock.beaconUUIDBytes

    /// What a run produced, read by the test while the run goes on.
    public final class Collected<T: Sendable>: Sendable {
        private let items = Locked<[T]>([])
        public init() {}
        public func append(_ item: T) { items.withLock { $0.append(item) } }
        public var all: [T] { items.withLock { $0 } }
    }

    public static func bluetoothd(on daemon: PrivateBusDaemon, manager features: [String]? = nil, refuse: Bool = false) async throws -> DBusMock {
        try await DBusMock.bluetoothd(address: daemon.address, monitorFeatures: features, refuseMonitors: refuse)
    }

    public static func discovering(_ mock: DBusMock) async throws -> Bool { await mock.bluezDiscovering() }

    public static func setDevice(_ mock: DBusMock, _ name: String, _ value: BusValue) async throws {
        try await mock.setBluezDevice(devicePath, name, value)
    }

    public static func iBeaconManufacturerData(major: UInt16, minor: UInt16) -> BusValue {
        DBusMock.iBeaconManufacturerData(uuid: uuidBytes, major: major, minor: minor)
    }

    /// A private bus with bluetoothd on it and a BlueZ transport on hci0 for `body`, closed
    /// (and bluetoothd stopped) afterwards.
    public static func withBlueZ(
        manager features: [String]? = nil, refuse: Bool = false, _ body: (DBusMock, BlueZTransport) async throws -> Void
    ) async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await bluetoothd(on: daemon, manager: features, refuse: refuse)
            defer { mock.stop() }
            let transport = try await open(daemon)
            do {
                try await body(mock, transport)
            } catch {
                await transport.close()
                throw error
            }
            await transport.close()
        }
    }

    /// A run in a task, its error (nil: it ended cleanly) as the task's value.
    public static func outcome(_ body: @escaping @Sendable () async throws(HCITransportError) -> Void) -> Task<HCITransportError?, Never> {
        Task {
            do throws(HCITransportError) {
                try await body()
                return nil
            } catch {
                return error
            }
        }
    }

    public static func open(_ daemon: PrivateBusDaemon, adapter: String? = nil) async throws -> BlueZTransport {
        let bus = try await BusConnection.open(address: daemon.address)
        return try await BlueZTransport.open(bus: bus, adapter: adapter, tick: .milliseconds(50))
    }
}
