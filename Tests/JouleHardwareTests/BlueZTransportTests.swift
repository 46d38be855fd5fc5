import JouleWire
import JouleHardware
import JouleTesting
import Testing

/// The BlueZ transport (adverts from bluetoothd's D-Bus signals instead of HCI events) against
/// python3-dbusmock's bluez5 template on a private bus: the same adverts as the HCI path, no
/// raw commands, and an end when bluetoothd or the adapter goes.
@Suite(.serialized, .enabled("needs dbus-daemon and python3-dbusmock: run scripts/install-deps.sh") { await dbusMockUsable() })
struct BlueZTransportTests {
    /// Scans with the transport alone, as the session runner does: discovery on, each event's
    /// adverts decoded, discovery off when the events end.
    static func scan(_ transport: BlueZTransport, into adverts: BlueZRig.Collected<BeaconAdvert>) -> Task<HCITransportError?, Never> {
        BlueZRig.outcome { () throws(HCITransportError) in
            try await transport.setDiscovering(true)
            while let record = try await transport.nextEvent() {
                _ = Array(record.bytes).withUnsafeBytes { raw in
                    BeaconAdvert.forEach(inEvent: raw, timestampMicros: record.timestampMicros) { adverts.append($0) }
                }
            }
            try await transport.setDiscovering(false)
        }
    }

    // MARK: scanning

    @Test func advertsFromSignalsMatchTheHCIPath() async throws {
        try await BlueZRig.withBlueZ { mock, transport in
            let adverts = BlueZRig.Collected<BeaconAdvert>()
            let run = Self.scan(transport, into: adverts)
            #expect(await eventually { (try? await BlueZRig.discovering(mock)) == true })
            let filter = try await mock.connection.property(
                destination: "org.bluez", path: BlueZRig.adapterPath, interface: BlueZTransport.adapterInterface, name: "DiscoveryFilter")
            let entries = Dictionary(uniqueKeysWithValues: filter.stringKeyedEntries ?? [])
            #expect(entries["Transport"] == .string("le"))
            #expect(entries["DuplicateData"] == .bool(true))

            // A device appears (no beacon data yet), its RSSI changes, then its advert data.
            try await mock.call("AddDevice", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("C0:FF:EE:00:00:01"), .string("beacon")])
            try await BlueZRig.setDevice(mock, "RSSI", .int16(-61))
            try await BlueZRig.setDevice(mock, "ManufacturerData", BlueZRig.iBeaconManufacturerData(major: 7, minor: 9))
            #expect(await eventually { adverts.all.count == 1 })
            // The same data again is another advert: bluetoothd re-sends it with DuplicateData.
            try await BlueZRig.setDevice(mock, "ManufacturerData", BlueZRig.iBeaconManufacturerData(major: 7, minor: 9))
            #expect(await eventually { adverts.all.count == 2 })

            // The controller's report of that advert, decoded on the HCI path.
            let data: [UInt8] = [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + BlueZRig.uuidBytes + [0, 7, 0, 9, 0xC5]
            let event: [UInt8] = [0x3E, UInt8(12 + data.count), 0x02, 1, 0x03, 0x00, 0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)]
                + data + [UInt8(bitPattern: -61)]
            var viaHCI: [JSONObject] = []
            _ = event.withUnsafeBytes { raw in
                BeaconAdvert.forEach(inEvent: raw, timestampMicros: nil) { viaHCI.append($0.jsonObject) }
            }
            #expect(viaHCI.count == 1)
            for advert in adverts.all {
                var line = advert.jsonObject
                #expect(line["timestamp"] != .null)
                line["timestamp"] = .null
                #expect(line == viaHCI.first)
            }

            // Stopping ends discovery; no HCI command was ever possible.
            transport.stopEvents()
            #expect(await run.value == nil)
            #expect(try await !BlueZRig.discovering(mock))
            await #expect(throws: HCITransportError.noRawCommands(command: HCICommand.setScanEnable(true).name)) {
                try await transport.send(.setScanEnable(true))
            }
        }
    }

    @Test func advertsWhileDiscoveryIsOffAreNotHeard() async throws {
        try await BlueZRig.withBlueZ { mock, transport in
            try await mock.call("AddDevice", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("C0:FF:EE:00:00:01"), .string("beacon")])
            // Another client's discovery reports it; joule's radio is off.
            try await BlueZRig.setDevice(mock, "ManufacturerData", BlueZRig.iBeaconManufacturerData(major: 1, minor: 1))
            // Handled before discovery starts: signals run on a task of their own, and the
            // StartDiscovery reply could overtake this one (the test flaked under load).
            #expect(await eventually { transport.knownDevice(at: BlueZRig.devicePath)?.manufacturerData.isEmpty == false })
            try await transport.setDiscovering(true)
            try await BlueZRig.setDevice(mock, "ManufacturerData", BlueZRig.iBeaconManufacturerData(major: 2, minor: 2))
            var heard: [HCIEventRecord] = []
            while heard.isEmpty, let record = try await transport.nextEvent() {
                if !record.bytes.isEmpty { heard.append(record) }
            }
            var minors: [JSONValue?] = []
            _ = Array(heard[0].bytes).withUnsafeBytes { raw in
                BeaconAdvert.forEach(inEvent: raw, timestampMicros: nil) { minors.append($0.jsonObject["minor"]) }
            }
            #expect(minors == [.int(2)])
            await transport.close()
            #expect(try await !BlueZRig.discovering(mock))
        }
    }

    @Test func bluetoothdVanishingMidScanEndsTheRun() async throws {
        try await BlueZRig.withBlueZ { mock, transport in
            let run = Self.scan(transport, into: BlueZRig.Collected<BeaconAdvert>())
            #expect(await eventually { (try? await BlueZRig.discovering(mock)) == true })
            mock.stop()
            let error = await run.value
            #expect(error == .bluetoothdGone("hci0"))
            #expect(error?.description == "bluetoothd left the system bus while scanning with hci0; scanning stopped")
        }
    }

    @Test func anAdapterRemovedMidScanEndsTheRun() async throws {
        try await BlueZRig.withBlueZ { mock, transport in
            let run = Self.scan(transport, into: BlueZRig.Collected<BeaconAdvert>())
            #expect(await eventually { (try? await BlueZRig.discovering(mock)) == true })
            try await mock.call("RemoveAdapter", interface: "org.bluez.Mock", arguments: [.string("hci0")])
            #expect(await run.value == .adapterGone("hci0", .noDevice))
        }
    }
}
