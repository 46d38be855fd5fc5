import JouleWire
import JouleHardware
import JouleWorkloads
import JouleTesting
import Testing

/// Choosing BlueZ, scanning sessions and region monitoring through bluetoothd, against
/// python3-dbusmock's bluez5 template on a private bus. The template has no AdvertisementMonitorManager1: the monitor
/// tests add it to the adapter's object the way bluetoothd --experimental exposes it.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct BlueZRegionMonitorTests {
    /// Runs a scan session over `transport` in a task, collecting its adverts.
    static func scan(_ transport: BlueZTransport, into adverts: BlueZRig.Collected<BeaconAdvert>) -> Task<HCITransportError?, Never> {
        BlueZRig.outcome { () throws(HCITransportError) in
            var runner = BeaconSessionRunner(
                configuration: BeaconSession.Configuration(mode: .scan), start: WallClock.micros(),
                commander: ScanCommander(transport: transport))
            try await runner.run { output in
                if case .advert(let advert, _) = output { adverts.append(advert) }
            }
        }
    }

    // MARK: choosing the transport

    @Test func bluezIsChosenWhenBluetoothdHasTheAdapter() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await BlueZRig.bluetoothd(on: daemon)
            defer { mock.stop() }
            let address = daemon.address
            let opener: BeaconTransportChooser.BusOpener = { () async throws(BusError) in try await BusConnection.open(address: address) }
            for kind in [BeaconTransportKind.auto, .bluez] {
                let opened = try await BeaconTransportChooser.open(kind, adapter: nil, systemBus: opener)
                #expect(opened.kind == .bluez)
                #expect(opened.adapter == "hci0")
                #expect(opened.description == "transport bluez (hci0, through bluetoothd)")
                await opened.transport.close()
            }
            let named = try await BeaconTransportChooser.open(.bluez, adapter: "hci0", systemBus: opener)
            #expect(named.bluez?.adapterPath == BlueZRig.adapterPath)
            await named.transport.close()
            await #expect(throws: HCITransportError.adapterNotFound("hci7")) {
                try await BeaconTransportChooser.open(.bluez, adapter: "hci7", systemBus: opener)
            }
        }
    }

    @Test func bluezWithoutBluetoothdSaysSo() async throws {
        try await PrivateBusDaemon.with { daemon in
            let address = daemon.address
            let opener: BeaconTransportChooser.BusOpener = { () async throws(BusError) in try await BusConnection.open(address: address) }
            do throws(HCITransportError) {
                _ = try await BeaconTransportChooser.open(.bluez, adapter: nil, systemBus: opener)
                Issue.record("opened BlueZ without bluetoothd")
            } catch {
                guard case .bluetoothdMissing = error else { return #expect(Bool(false), "\(error)") }
                #expect(error.description.contains("bluetoothd is not on the system bus"))
            }
            // auto falls back to the raw socket: whatever that says here, it is not about bluetoothd.
            do throws(HCITransportError) {
                let opened = try await BeaconTransportChooser.open(.auto, adapter: nil, systemBus: opener)
                #expect(opened.kind == .hci)
                await opened.transport.close()
            } catch {
                #expect(!error.description.contains("bluetoothd"))
            }
        }
    }

    // MARK: region monitoring

    static let region = BeaconRegion(name: "office", uuid: BeaconUUID(BlueZRig.uuid)!, major: 7)

    /// An Eddystone-UID region is its namespace (and instance) in 0xFEAA service data, at the
    /// kernel's and bluetoothd 5.66's offset (4, after the UUID, frame type and Tx power) and at
    /// newer bluetoothd's (2: it counts from after the UUID).
    @Test func anEddystoneRegionIsAServiceDataPattern() throws {
        let namespace: [UInt8] = [0xED, 0xD1, 0xEB, 0xEA, 0xC0, 0x4E, 0x5D, 0xEF, 0xA0, 0x17]
        let instance: [UInt8] = [0x0B, 0xAD, 0xC0, 0xFF, 0xEE, 0x01]
        func pattern(_ start: UInt8, _ content: [UInt8]) -> BusValue {
            .structure([.byte(start), .byte(0x16), .array(elementSignature: "y", content.map(BusValue.byte))])
        }
        let one = try BeaconRegion(spec: "door=edd1ebeac04e5defa017:0badc0ffee01")
        #expect(
            BlueZRegionMonitor.patterns(for: one)
                == .array(elementSignature: "(yyay)", [pattern(4, namespace + instance), pattern(2, namespace + instance)]))
        let fleet = try BeaconRegion(spec: "fleet=edd1ebeac04e5defa017")
        #expect(BlueZRegionMonitor.patterns(for: fleet) == .array(elementSignature: "(yyay)", [pattern(4, namespace), pattern(2, namespace)]))
    }

    @Test func monitorsAreRegisteredWithTheRegionsPatterns() async throws {
        try await BlueZRig.withBlueZ(manager: ["controller-patterns"]) { mock, transport in
            let prepared = await BlueZRegionMonitor.prepare(on: transport, regions: [Self.region], exitTimeout: .seconds(12.5))
            #expect(prepared.mechanism == .offloaded)
            #expect(prepared.note == nil)
            let monitor = try #require(prepared.monitor)
            #expect(try await mock.methodCalls("RegisterMonitor", path: BlueZRig.adapterPath) == [[.objectPath(monitor.root)]])

            // What bluetoothd reads from joule's ObjectManager.
            let reply = try await mock.connection.call(
                destination: transport.bus.uniqueName, path: monitor.root, interface: "org.freedesktop.DBus.ObjectManager",
                member: "GetManagedObjects")
            guard case .array(_, let objects)? = reply.first, objects.count == 1,
                case .dictEntry(.objectPath(let path), let interfaces) = objects[0]
            else {
                Issue.record("unexpected objects \(reply)")
                return
            }
            #expect(path == monitor.root + "/region0")
            let properties = Dictionary(
                uniqueKeysWithValues: interfaces.stringKeyedEntries?.first { $0.0 == BlueZRegionMonitor.monitorInterface }?.1
                    .stringKeyedEntries ?? [])
            #expect(properties["Type"] == .string("or_patterns"))
            #expect(properties["RSSILowTimeout"] == .uint16(13))
            #expect(properties["RSSILowThreshold"] == .int16(-127))
            let ibeacon: [UInt8] = [0x4C, 0x00, 0x02, 0x15] + BlueZRig.uuidBytes + [0x00, 0x07]
            let altbeacon: [UInt8] = [0xBE, 0xAC] + BlueZRig.uuidBytes + [0x00, 0x07]
            #expect(
                properties["Patterns"]
                    == .array(
                        elementSignature: "(yyay)",
                        [
                            .structure([.byte(0), .byte(0xFF), .array(elementSignature: "y", ibeacon.map(BusValue.byte))]),
                            .structure([.byte(2), .byte(0xFF), .array(elementSignature: "y", altbeacon.map(BusValue.byte))]),
                        ]))

            // DeviceFound is an entry, the last DeviceLost an exit.
            let events = BlueZRig.Collected<RegionEvent>()
            let run = BlueZRig.outcome { () throws(HCITransportError) in try await monitor.run { events.append($0) } }
            func tell(_ member: String, _ device: String?) async throws {
                _ = try await mock.connection.call(
                    destination: transport.bus.uniqueName, path: monitor.root + "/region0",
                    interface: BlueZRegionMonitor.monitorInterface, member: member, arguments: device.map { [.objectPath($0)] } ?? [])
            }
            try await tell("Activate", nil)
            try await tell("DeviceFound", BlueZRig.devicePath)
            #expect(await eventually { events.all.count == 1 })
            try await tell("DeviceFound", BlueZRig.adapterPath + "/dev_C0_FF_EE_00_00_02")
            try await tell("DeviceLost", BlueZRig.devicePath)
            try await tell("DeviceLost", BlueZRig.adapterPath + "/dev_C0_FF_EE_00_00_02")
            #expect(await eventually { events.all.count == 2 })
            #expect(events.all.map(\.kind) == [.enter, .exit])
            #expect(events.all.allSatisfy { $0.region == Self.region })

            transport.stopEvents()
            #expect(await run.value == nil)
            #expect(try await mock.methodCalls("UnregisterMonitor", path: BlueZRig.adapterPath) == [[.objectPath(monitor.root)]])
            // Monitoring never started discovery.
            #expect(try await !BlueZRig.discovering(mock))
        }
    }

    @Test func bluetoothdVanishingEndsMonitoring() async throws {
        try await BlueZRig.withBlueZ(manager: []) { mock, transport in
            let prepared = await BlueZRegionMonitor.prepare(on: transport, regions: [Self.region], exitTimeout: .seconds(10))
            #expect(prepared.mechanism == .bluezSoftware)
            #expect(prepared.note?.contains("matches them in software") == true)
            let monitor = try #require(prepared.monitor)
            let run = BlueZRig.outcome { () throws(HCITransportError) in try await monitor.run { _ in } }
            mock.stop()
            #expect(await run.value == .bluetoothdGone("hci0"))
        }
    }

    /// No manager (bluetoothd without --experimental), or one that refuses the monitors.
    @Test(arguments: [(nil, false, "Experimental = true"), (["controller-patterns"], true, "no room")] as [([String]?, Bool, String)])
    func monitoringFallsBackToDiscovery(_ features: [String]?, _ refuse: Bool, _ said: String) async throws {
        try await BlueZRig.withBlueZ(manager: features, refuse: refuse) { mock, transport in
            let prepared = await BlueZRegionMonitor.prepare(on: transport, regions: [Self.region], exitTimeout: .seconds(10))
            #expect(prepared.monitor == nil)
            #expect(prepared.mechanism == .bluezSoftware)
            #expect(prepared.note?.contains(said) == true)
        }
    }

    @Test func theFallbackEntersAndExitsThroughDiscovery() async throws {
        try await BlueZRig.withBlueZ { mock, transport in
            let events = BlueZRig.Collected<RegionEvent>()
            let run = BlueZRig.outcome { () throws(HCITransportError) in
                var configuration = BeaconSession.Configuration(mode: .monitor, regions: [Self.region])
                configuration.exitTimeout = .milliseconds(300)
                configuration.listensWhileOn = true
                var runner = BeaconSessionRunner(
                    configuration: configuration, start: WallClock.micros(), commander: ScanCommander(transport: transport))
                try await runner.run { if case .region(let event) = $0 { events.append(event) } }
            }
            #expect(await eventually { (try? await BlueZRig.discovering(mock)) == true })
            try await mock.call("AddDevice", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("C0:FF:EE:00:00:01"), .string("beacon")])
            try await BlueZRig.setDevice(mock, "ManufacturerData", BlueZRig.iBeaconManufacturerData(major: 7, minor: 1))
            // bluetoothd stops reporting it: the clock ticks on, and the region is left.
            #expect(await eventually { events.all.count == 2 })
            #expect(events.all.map(\.kind) == [.enter, .exit])
            transport.stopEvents()
            #expect(await run.value == nil)
        }
    }
}
