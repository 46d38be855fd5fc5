import JouleWire


/// Scanning through bluetoothd instead of a raw HCI socket, as bleak does: `SetDiscoveryFilter`
/// (`Transport` le, `DuplicateData` true, `RSSI` -127) and `StartDiscovery` on
/// `org.bluez.Adapter1`, adverts from the `InterfacesAdded` and Device1 `PropertiesChanged`
/// signals. Each advert is rebuilt into the LE Advertising Report a controller would have sent
/// (`BlueZDevice`), so the session decodes it on the same path as HCI and replay.
///
/// What bluetoothd reports (src/adapter.c `btd_adapter_device_found`, src/device.c): with
/// `DuplicateData` it clears and re-sets ManufacturerData and ServiceData for every advert, so
/// each change signal carrying them is one advert heard. RSSI is only re-sent when it changed
/// (by any amount once the filter has an RSSI, else by 8 dBm), so an advert whose RSSI is not in
/// the signal keeps the last value bluetoothd gave: the beacon is still there, as strong as it
/// was. A beacon bluetoothd stops reporting sends nothing, and leaves after the exit timeout.
///
/// joule never sends an HCI command here (`send` refuses); bluetoothd drives the controller,
/// and ends joule's discovery itself if joule's bus connection drops.
public final class BlueZTransport: DiscoveryTransport {
    public static let service = "org.bluez"
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    public let bus: BusConnection
    /// e.g. `hci0`
    public let adapterName: String
    /// e.g. `/org/bluez/hci0`
    public let adapterPath: String
    /// The interfaces bluetoothd offered on the adapter when it was opened (Adapter1, and
    /// AdvertisementMonitorManager1 when it runs with --experimental), with their properties.
    public let adapterInterfaces: [String: [(String, BusValue)]]
    private let state = Locked(State())
    private let events = HCIEventQueue()

    private struct State {
        var devices: [String: BlueZDevice] = [:]
        /// Discovery that joule asked for and has not stopped.
        var discovering = false
        var filterSet = false
        var tasks: [Task<Void, Never>] = []
        var ticker: Task<Void, Never>?
    }

    private init(bus: BusConnection, adapterName: String, adapterPath: String, interfaces: [String: [(String, BusValue)]]) {
        self.bus = bus
        self.adapterName = adapterName
        self.adapterPath = adapterPath
        adapterInterfaces = interfaces
    }

    /// Whether bluetoothd owns `org.bluez` on `bus`.
    public static func isRunning(on bus: BusConnection) async -> Bool {
        let reply = try? await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(service)])
        return reply?.first?.boolValue ?? false
    }

    /// The adapters bluetoothd has, by name (`hci0`), with their path and interfaces.
    public static func adapters(on bus: BusConnection) async throws(HCITransportError)
        -> [(name: String, path: String, interfaces: [String: [(String, BusValue)]])]
    {
        var found: [(name: String, path: String, interfaces: [String: [(String, BusValue)]])] = []
        for (path, interfaces) in try await managedObjects(bus) {
            guard interfaces[adapterInterface] != nil, let name = path.split(separator: "/").last else { continue }
            found.append((name: String(name), path: path, interfaces: interfaces))
        }
        // hci2 before hci10.
        return found.sorted { $0.name.count != $1.name.count ? $0.name.count < $1.name.count : $0.name < $1.name }
    }

    /// ObjectManager.GetManagedObjects on `/`: every object's interfaces and properties.
    static func managedObjects(_ bus: BusConnection) async throws(HCITransportError) -> [String: [String: [(String, BusValue)]]] {
        let reply: [BusValue]
        do throws(BusError) {
            reply = try await bus.call(destination: service, path: "/", interface: objectManager, member: "GetManagedObjects")
        } catch {
            throw failure("GetManagedObjects", error, adapter: "")
        }
        guard case .array(_, let objects)? = reply.first else {
            throw .bluez(operation: "GetManagedObjects", detail: "unexpected reply \(reply)")
        }
        var out: [String: [String: [(String, BusValue)]]] = [:]
        for object in objects {
            guard case .dictEntry(let path, let value) = object, let path = path.stringValue,
                let interfaces = value.stringKeyedEntries
            else { continue }
            var byName: [String: [(String, BusValue)]] = [:]
            for (name, properties) in interfaces { byName[name] = properties.stringKeyedEntries ?? [] }
            out[path] = byName
        }
        return out
    }

    /// Opens `adapter` (`hci0`; nil: the first powered one) through bluetoothd on `bus`. The
    /// transport owns the connection from now on and closes it in `close()`.
    public static func open(bus: BusConnection, adapter name: String?, tick: Duration = .seconds(1))
        async throws(HCITransportError) -> BlueZTransport
    {
        guard await isRunning(on: bus) else {
            await bus.close()
            throw .bluetoothdMissing("nobody owns \(service) on \(bus.address)")
        }
        do throws(HCITransportError) {
            // Subscribed before the objects are read, so nothing said in between is lost.
            let signals: AsyncStream<BusSignalMessage>
            let owners: AsyncStream<BusSignalMessage>
            do throws(BusError) {
                signals = try await bus.signals(matching: "type='signal',sender='\(service)'")
                owners = try await bus.signals(
                    matching: "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service)'")
            } catch {
                throw .bluez(operation: "AddMatch", detail: "\(error)")
            }
            let all = try await adapters(on: bus)
            let chosen: (name: String, path: String, interfaces: [String: [(String, BusValue)]])
            if let name {
                guard let found = all.first(where: { $0.name == name }) else { throw .adapterNotFound(name) }
                guard powered(found.interfaces) else { throw .adapterDown(name) }
                chosen = found
            } else {
                guard let found = all.first(where: { powered($0.interfaces) }) else {
                    if let down = all.first { throw .adapterDown(down.name) }
                    throw .noAdapter(detail: "bluetoothd has no adapter")
                }
                chosen = found
            }
            let transport = BlueZTransport(bus: bus, adapterName: chosen.name, adapterPath: chosen.path, interfaces: chosen.interfaces)
            transport.start(signals: signals, owners: owners, devices: try await managedObjects(bus), tick: tick)
            return transport
        } catch {
            await bus.close()
            throw error
        }
    }

    private static func powered(_ interfaces: [String: [(String, BusValue)]]) -> Bool {
        interfaces[adapterInterface]?.first { $0.0 == "Powered" }?.1.boolValue ?? true
    }

    private func start(
        signals: AsyncStream<BusSignalMessage>, owners: AsyncStream<BusSignalMessage>,
        devices: [String: [String: [(String, BusValue)]]], tick: Duration
    ) {
        var known: [String: BlueZDevice] = [:]
        for (path, interfaces) in devices where isDevicePath(path) {
            guard let properties = interfaces[Self.deviceInterface] else { continue }
            var device = BlueZDevice()
            device.apply(properties)
            known[path] = device
        }
        let tasks = [
            Task { [weak self] in
                for await signal in signals { self?.handle(signal) }
            },
            Task { [weak self] in
                for await signal in owners {
                    if signal.arguments.count == 3, signal.arguments[2].stringValue == "" {
                        self?.fail(.bluetoothdGone(self?.adapterName ?? "the adapter"))
                    }
                }
            },
        ]
        // A clock tick, as the HCI socket's: timers (exits, ranging) fire while the air is quiet.
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                self?.deliver(HCIEventRecord(timestampMicros: WallClock.micros(), bytes: []))
            }
        }
        state.withLock { state in
            state.devices = known
            state.tasks = tasks
            state.ticker = ticker
        }
    }

    /// Ends the clock tick: a user with no timers (the controller's own region monitors)
    /// then wakes only for what bluetoothd says.
    public func stopTicks() {
        state.withLock { state in
            defer { state.ticker = nil }
            return state.ticker
        }?.cancel()
    }

    private func isDevicePath(_ path: String) -> Bool { path.hasPrefix(adapterPath + "/") }

    private func handle(_ signal: BusSignalMessage) {
        let args = signal.arguments
        switch (signal.interface, signal.member) {
        case (Self.objectManager, "InterfacesAdded"):
            guard args.count == 2, let path = args[0].stringValue, isDevicePath(path),
                let properties = args[1].stringKeyedEntries?.first(where: { $0.0 == Self.deviceInterface })?.1.stringKeyedEntries
            else { return }
            var device = BlueZDevice()
            let update = device.apply(properties)
            heard(path: path, device: device, update: update)
        case (Self.objectManager, "InterfacesRemoved"):
            guard args.count == 2, let path = args[0].stringValue, case .array(_, let names) = args[1] else { return }
            let removed = names.compactMap(\.stringValue)
            if path == adapterPath, removed.contains(Self.adapterInterface) {
                fail(.adapterGone(adapterName, .noDevice))
            } else if removed.contains(Self.deviceInterface) {
                state.withLock { _ = $0.devices.removeValue(forKey: path) }
            }
        case (Self.properties, "PropertiesChanged"):
            guard isDevicePath(signal.path), args.count == 3, args[0].stringValue == Self.deviceInterface,
                let changed = args[1].stringKeyedEntries
            else { return }
            let invalidated: [String] = if case .array(_, let names) = args[2] { names.compactMap(\.stringValue) } else { [] }
            let (device, update) = state.withLock { state in
                var device = state.devices[signal.path] ?? BlueZDevice()
                let update = device.apply(changed, invalidated: invalidated)
                return (device, update)
            }
            heard(path: signal.path, device: device, update: update)
        default:
            break
        }
    }

    /// Keeps the device's latest state; an advert (data in the signal) while joule's discovery
    /// is on goes out as the report a controller would have sent, holding the data that this
    /// advert carried.
    private func heard(path: String, device: BlueZDevice, update: BlueZDevice.Update) {
        let listening = state.withLock { state in
            state.devices[path] = device
            return state.discovering
        }
        guard listening, update.advertData,
            let event = device.advertisingReportEvent(manufacturer: update.manufacturerData, service: update.serviceData)
        else { return }
        deliver(HCIEventRecord(timestampMicros: WallClock.micros(), bytes: event))
    }

    /// The device at `path` as the signals handled so far left it, for tests that must know a
    /// signal was taken before they go on (signals are handled on a task of their own, so a
    /// reply to a later call can overtake them).
    package func knownDevice(at path: String) -> BlueZDevice? { state.withLock { $0.devices[path] } }

    // MARK: HCITransport

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        throw .noRawCommands(command: command.name)
    }

    public func setDiscovering(_ on: Bool) async throws(HCITransportError) {
        if let failure = events.failure { throw failure }
        if on {
            if !state.withLock({ $0.filterSet }) {
                try await adapterCall(
                    "SetDiscoveryFilter",
                    [.variantDictionary([("Transport", .string("le")), ("DuplicateData", .bool(true)), ("RSSI", .int16(-127))])])
                state.withLock { $0.filterSet = true }
            }
            try await adapterCall("StartDiscovery")
            state.withLock { $0.discovering = true }
        } else {
            let was = state.withLock { state in
                defer { state.discovering = false }
                return state.discovering
            }
            if was { try await adapterCall("StopDiscovery") }
        }
    }

    private func adapterCall(_ member: String, _ arguments: [BusValue] = []) async throws(HCITransportError) {
        do throws(BusError) {
            _ = try await bus.call(
                destination: Self.service, path: adapterPath, interface: Self.adapterInterface, member: member,
                arguments: arguments, timeout: .seconds(10))
        } catch {
            if let failure = events.failure { throw failure }
            throw Self.failure(member, error, adapter: adapterName)
        }
    }

    /// A failed call as the user should read it: bluetoothd gone, the adapter down or gone, or
    /// bluetoothd's own error.
    static func failure(_ operation: String, _ error: BusError, adapter: String) -> HCITransportError {
        switch error.remoteName {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NoReply",
            "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .bluetoothdGone(adapter.isEmpty ? "the adapter" : adapter)
        case "org.bluez.Error.NotReady": return .adapterDown(adapter)
        case "org.freedesktop.DBus.Error.UnknownObject": return .adapterGone(adapter, .noDevice)
        default: return .bluez(operation: operation, detail: "\(error)")
        }
    }

    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? { try await events.next() }

    public func stopEvents() { events.stop() }

    /// Stops joule's discovery if it still runs, and closes the bus connection.
    public func close() async {
        events.close()
        let tasks = state.withLock { state in
            defer {
                state.tasks = []
                state.ticker = nil
            }
            return state.tasks + [state.ticker].compactMap { $0 }
        }
        for task in tasks { task.cancel() }
        try? await setDiscovering(false)
        stopEvents()
        await bus.close()
    }

    private func deliver(_ record: HCIEventRecord) { events.deliver(record) }

    private func fail(_ error: HCITransportError) {
        state.withLock { $0.discovering = false }
        events.fail(error)
    }
}
