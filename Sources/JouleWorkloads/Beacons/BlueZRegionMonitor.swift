import JouleHardware
import Synchronization

/// Region monitoring that bluetoothd (and, with the MSFT extension, the controller) runs:
/// one `or_patterns` AdvertisementMonitor1 per region, exported on joule's connection under an
/// ObjectManager root and registered with `AdvertisementMonitorManager1.RegisterMonitor`.
/// `DeviceFound` is an entry, `DeviceLost` (after `RSSILowTimeout`, the region's exit timeout,
/// without an advert) an exit. Between those joule is not woken at all: no discovery, no tick.
///
/// A region matches any device whose advert fits one of its patterns; it is inside while at
/// least one such device is found, as Core Location treats a region of many beacons.
public final class BlueZRegionMonitor: Sendable {
    public static let managerInterface = "org.bluez.AdvertisementMonitorManager1"
    public static let monitorInterface = "org.bluez.AdvertisementMonitor1"
    /// The manager's feature that says the controller runs the patterns.
    public static let controllerPatterns = "controller-patterns"

    public let transport: BlueZTransport
    public let regions: [BeaconRegion]
    public let exitTimeout: Duration
    /// The ObjectManager root registered with bluetoothd; a region's monitor is `root/regionN`.
    public let root: String
    private let stream: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation

    private enum Item: Sendable {
        case found(Int, String)
        case lost(Int, String)
        case released(Int)
        case ended
        case failed(HCITransportError)
    }

    private static let roots = Atomic<Int>(0)

    public init(transport: BlueZTransport, regions: [BeaconRegion], exitTimeout: Duration) {
        self.transport = transport
        self.regions = regions
        self.exitTimeout = exitTimeout
        root = "/org/joule/beacons/monitor\(Self.roots.add(1, ordering: .relaxed).newValue)"
        let made = AsyncStream.makeStream(of: Item.self)
        stream = made.stream
        continuation = made.continuation
    }

    /// The manager's `SupportedFeatures` when bluetoothd offers AdvertisementMonitorManager1 on
    /// the adapter (it does with `--experimental`); nil when it does not.
    public static func managerFeatures(of transport: BlueZTransport) -> [String]? {
        guard let properties = transport.adapterInterfaces[managerInterface] else { return nil }
        guard case .array(_, let values)? = properties.first(where: { $0.0 == "SupportedFeatures" })?.1 else { return [] }
        return values.compactMap(\.stringValue)
    }

    /// The mechanism a monitor gets on `transport`, and why when it is not the best one.
    public static func mechanism(for transport: any HCITransport) -> (mechanism: RegionMonitorMechanism, note: String?) {
        guard let bluez = transport as? BlueZTransport else { return (.hciDutyCycle, nil) }
        guard let features = managerFeatures(of: bluez) else {
            return (
                .bluezSoftware,
                "bluetoothd offers no AdvertisementMonitorManager1 on \(bluez.adapterName) (enable it with Experimental = true in /etc/bluetooth/main.conf, or bluetoothd --experimental); monitoring through filtered discovery"
            )
        }
        if features.contains(controllerPatterns) { return (.offloaded, nil) }
        return (.bluezSoftware, "the controller of \(bluez.adapterName) cannot run advertisement monitors; bluetoothd matches them in software")
    }

    /// How `regions` will be monitored on `transport`: through bluetoothd's monitors, registered
    /// here (`monitor` set: call `run`), or by the session (discovery or the HCI duty cycle),
    /// with a note saying why when it is not the best mechanism. A refusal by bluetoothd falls
    /// back to discovery.
    public static func prepare(on transport: any HCITransport, regions: [BeaconRegion], exitTimeout: Duration) async
        -> (monitor: BlueZRegionMonitor?, mechanism: RegionMonitorMechanism, note: String?)
    {
        let best = mechanism(for: transport)
        guard let bluez = transport as? BlueZTransport, managerFeatures(of: bluez) != nil else { return (nil, best.mechanism, best.note) }
        let monitor = BlueZRegionMonitor(transport: bluez, regions: regions, exitTimeout: exitTimeout)
        do throws(HCITransportError) {
            try await monitor.register()
            return (monitor, best.mechanism, best.note)
        } catch {
            return (nil, .bluezSoftware, "bluetoothd refused the region monitors (\(error)); monitoring through filtered discovery")
        }
    }

    /// The region's patterns, `a(yyay)`: iBeacon (manufacturer data of Apple, 0x004C, type 0x02,
    /// length 0x15, then the UUID) and AltBeacon (any company, then code 0xBEAC and the UUID as
    /// id1), each followed by major and minor when the region names them.
    ///
    /// Eddystone-UID: the namespace (and instance) in service data. Its frame puts the Tx power
    /// between the frame type and the namespace, and an or_patterns monitor cannot skip a byte,
    /// so the pattern is the namespace alone at its offset; ten bytes of namespace name one
    /// beacon fleet. Offsets differ by BlueZ version: the kernel, the controller and bluetoothd up
    /// to 5.68 count from the service UUID (0xFEAA, frame type, Tx power: offset 4); bluetoothd
    /// 5.69 and later count from after it (offset 2). Both patterns are given: one matches.
    public static func patterns(for region: BeaconRegion) -> BusValue {
        func pattern(start: UInt8, type: UInt8, _ content: [UInt8]) -> BusValue {
            .structure([.byte(start), .byte(type), .array(elementSignature: "y", content.map(BusValue.byte))])
        }
        switch region.identity {
        case .proximity(let uuid, let major, let minor):
            var id: [UInt8] = withUnsafeBytes(of: uuid.high.bigEndian) { Array($0) }
            id += withUnsafeBytes(of: uuid.low.bigEndian) { Array($0) }
            if let major {
                id += [UInt8(major >> 8), UInt8(truncatingIfNeeded: major)]
                if let minor { id += [UInt8(minor >> 8), UInt8(truncatingIfNeeded: minor)] }
            }
            let type = ADStructures.manufacturerSpecific
            return .array(
                elementSignature: "(yyay)",
                [pattern(start: 0, type: type, [0x4C, 0x00, 0x02, 0x15] + id), pattern(start: 2, type: type, [0xBE, 0xAC] + id)])
        case .eddystone(let namespace, let instance):
            let id = namespace.bytes + (instance?.bytes ?? [])
            let type = ADStructures.serviceData16
            return .array(elementSignature: "(yyay)", [pattern(start: 4, type: type, id), pattern(start: 2, type: type, id)])
        }
    }

    /// `RSSILowTimeout`: the exit timeout in whole seconds, 1 to 255 (MSFT's LE Monitor
    /// Advertisement carries it in one byte; bluetoothd takes up to 300).
    public var lowTimeoutSeconds: UInt16 {
        let seconds = (exitTimeout / .seconds(1)).rounded(.up)
        return UInt16(min(255, max(1, seconds.isFinite ? seconds : 255)))
    }

    private func monitorInterface(_ index: Int) -> BusInterface {
        let continuation = self.continuation
        let low = lowTimeoutSeconds
        return BusInterface(
            name: Self.monitorInterface,
            properties: [
                .init("Type", "s", emitsChange: false) { .string("or_patterns") },
                // Any signal counts: presence, not proximity, decides entry and exit.
                .init("RSSILowThreshold", "n", emitsChange: false) { .int16(-127) },
                .init("RSSIHighThreshold", "n", emitsChange: false) { .int16(-127) },
                .init("RSSILowTimeout", "q", emitsChange: false) { .uint16(low) },
                .init("RSSIHighTimeout", "q", emitsChange: false) { .uint16(1) },
                // Only the first advert of a found device is passed on: the host sleeps after it.
                .init("RSSISamplingPeriod", "q", emitsChange: false) { .uint16(255) },
                .init("Patterns", "a(yyay)", emitsChange: false) { [regions] in Self.patterns(for: regions[index]) },
            ],
            methods: [
                .init("Release") { _ in
                    continuation.yield(.released(index))
                    return []
                },
                .init("Activate") { _ in [] },
                .init("DeviceFound", in: "o", inNames: ["device"]) { call in
                    continuation.yield(.found(index, Self.device(call)))
                    return []
                },
                .init("DeviceLost", in: "o", inNames: ["device"]) { call in
                    continuation.yield(.lost(index, Self.device(call)))
                    return []
                },
            ])
    }

    private static func device(_ call: BusMethodCall) -> String { call.arguments.first?.stringValue ?? "" }

    private func path(_ index: Int) -> String { "\(root)/region\(index)" }

    /// Exports the monitors and registers them with bluetoothd; throws `.bluez` when it refuses
    /// them, so the caller can fall back to discovery. Then call `run`.
    public func register() async throws(HCITransportError) {
        let bus = transport.bus
        do throws(BusError) {
            try await bus.addObjectManager(at: root)
            for index in regions.indices { try await bus.export(monitorInterface(index), at: path(index)) }
            _ = try await bus.call(
                destination: BlueZTransport.service, path: transport.adapterPath, interface: Self.managerInterface,
                member: "RegisterMonitor", arguments: [.objectPath(root)], timeout: .seconds(10))
        } catch {
            await withdraw(registered: false)
            throw .bluez(operation: "RegisterMonitor", detail: "\(error)")
        }
    }

    /// Reports entries and exits of the registered monitors until the transport's events end
    /// (a signal's `stopEvents`, the task's cancellation) or fail (bluetoothd gone), then
    /// unregisters everything.
    public func run(emit: (RegionEvent) -> Void) async throws(HCITransportError) {
        transport.stopTicks()
        let transport = self.transport
        let continuation = self.continuation
        // The transport's stream carries the end (stop, cancellation) and bluetoothd's departure.
        let watcher = Task {
            do throws(HCITransportError) {
                while try await transport.nextEvent() != nil {}
                continuation.yield(.ended)
            } catch {
                continuation.yield(.failed(error))
            }
        }
        var failure: HCITransportError?
        var found = Array(repeating: Set<String>(), count: regions.count)
        await withTaskCancellationHandler {
            loop: for await item in stream {
                switch item {
                case .found(let index, let device):
                    if found[index].isEmpty {
                        emit(RegionEvent(timestampMicros: WallClock.micros(), kind: .enter, region: regions[index]))
                    }
                    found[index].insert(device)
                case .lost(let index, let device):
                    guard found[index].remove(device) != nil, found[index].isEmpty else { continue }
                    emit(RegionEvent(timestampMicros: WallClock.micros(), kind: .exit, region: regions[index]))
                case .released(let index):
                    failure = .bluez(operation: "AdvertisementMonitor1", detail: "bluetoothd released the monitor of region \(regions[index].name)")
                    break loop
                case .ended:
                    break loop
                case .failed(let error):
                    failure = error
                    break loop
                }
            }
        } onCancel: {
            transport.stopEvents()
        }
        watcher.cancel()
        await withdraw(registered: failure == nil)
        if let failure { throw failure }
    }

    private func withdraw(registered: Bool) async {
        let bus = transport.bus
        if registered {
            _ = try? await bus.call(
                destination: BlueZTransport.service, path: transport.adapterPath, interface: Self.managerInterface,
                member: "UnregisterMonitor", arguments: [.objectPath(root)], timeout: .seconds(5))
        }
        for index in regions.indices { await bus.unexport(path: path(index), interface: Self.monitorInterface) }
        await bus.removeObjectManager(at: root)
    }
}
