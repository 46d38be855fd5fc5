import Foundation
import JouleHardware
import JoulePolicy
import JouleTesting
import Testing

/// `joule beacons --transport` against python3-dbusmock's bluez5 template, the CLI's system bus
/// pointed at a private dbus-daemon.
@Suite(
    .serialized,
    .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"),
    .enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
struct BeaconsBlueZCLITests {
    static let adapterPath = "/org/bluez/hci0"
    static let devicePath = adapterPath + "/dev_C0_FF_EE_00_00_01"
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let uuidBytes: [UInt8] = [
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
    ]

    static func environment(_ daemon: PrivateBusDaemon) -> [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": daemon.address] }

    static func bluetoothd(on daemon: PrivateBusDaemon, manager: Bool = false) async throws -> DBusMock {
        let mock = try await DBusMock(.bluez, address: daemon.address)
        try await mock.call("AddAdapter", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("joule-test")])
        if manager {
            let interface = BlueZRegionMonitor.managerInterface
            try await mock.addProperties(
                interface: interface,
                [
                    ("SupportedMonitorTypes", .array(elementSignature: "s", [.string("or_patterns")])),
                    ("SupportedFeatures", .array(elementSignature: "s", [.string("controller-patterns")])),
                ], path: adapterPath)
            try await mock.addMethod(interface: interface, name: "RegisterMonitor", in: "o", out: "", code: "", path: adapterPath)
            try await mock.addMethod(interface: interface, name: "UnregisterMonitor", in: "o", out: "", code: "", path: adapterPath)
        }
        return mock
    }

    static func discovering(_ mock: DBusMock) async -> Bool {
        (try? await mock.connection.property(
            destination: "org.bluez", path: adapterPath, interface: BlueZTransport.adapterInterface, name: "Discovering"))?
            .boolValue ?? false
    }

    static func advertise(_ mock: DBusMock, rssi: Int16) async throws {
        try await mock.call("AddDevice", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("C0:FF:EE:00:00:01"), .string("beacon")])
        func set(_ name: String, _ value: BusValue) async throws {
            try await mock.call(
                "Set", interface: "org.freedesktop.DBus.Properties", path: devicePath,
                arguments: [.string(BlueZTransport.deviceInterface), .string(name), .variant(value)])
        }
        try await set("RSSI", .int16(rssi))
        let payload: [UInt8] = [0x02, 0x15] + uuidBytes + [0x00, 0x07, 0x00, 0x09, 0xC5]
        try await set(
            "ManufacturerData",
            .array(elementSignature: "{qv}", [.dictEntry(.uint16(0x004C), .variant(.array(elementSignature: "y", payload.map(BusValue.byte))))]))
    }

    @Test func transportUsageAndMissingBluetoothd() async throws {
        let unknown = try await CLIHarness.run(["beacons", "scan", "--transport", "carrier-pigeon"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("carrier-pigeon"))
        let withReplay = try await CLIHarness.run(["beacons", "scan", "--transport", "hci", "--replay", "/nonexistent.btsnoop"])
        #expect(withReplay.status == 2)
        try await PrivateBusDaemon.with { daemon in
            for sub in [["scan"], ["monitor", "--region", Self.uuid], ["range", "--region", Self.uuid, "--once"], ["record", "--out", "/tmp/joule-never.btsnoop"]] {
                let result = try await CLIHarness.run(["beacons"] + sub + ["--transport", "bluez"], environment: Self.environment(daemon))
                #expect(result.status == 1, "\(sub)")
                #expect(result.stderr.contains("bluetoothd is not on the system bus"), "\(sub): \(result.stderr)")
            }
        }
    }

    @Test func scanPrintsTheHCILinesAndStopsDiscoveryOnSIGINT() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.bluetoothd(on: daemon)
            defer { mock.stop() }
            let joule = try CLIProcess(
                ["beacons", "scan", "--json", "--ignore-energy-state", "--adapter", "hci0"], environment: Self.environment(daemon))
            defer { joule.end() }
            #expect(await eventually { await Self.discovering(mock) })
            try await Self.advertise(mock, rssi: -61)
            let line = try #require(await joule.nextLine())
            // The line of the HCI path for this advert, after the timestamp of reception.
            let rest = line.split(separator: ",", maxSplits: 1).last.map(String.init)
            #expect(line.hasPrefix("{\"timestamp\":"))
            #expect(
                rest
                    == "\"address\":\"C0:FF:EE:00:00:01\",\"addressType\":\"public\",\"rssi\":-61,\"kind\":\"ibeacon\",\"uuid\":\"\(Self.uuid)\",\"major\":7,\"minor\":9,\"txPower\":-59}"
            )
            #expect(await joule.stop(SIGINT) == 0)
            #expect(await !Self.discovering(mock))
        }
    }

    @Test func monitorSaysOffloadedFirstAndExitsWhenBluetoothdGoes() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.bluetoothd(on: daemon, manager: true)
            defer { mock.stop() }
            async let run = CLIHarness.run(
                ["beacons", "monitor", "--json", "--transport", "bluez", "--region", "office=\(Self.uuid):7"],
                environment: Self.environment(daemon))
            #expect(await eventually { ((try? await mock.methodCalls("RegisterMonitor", path: Self.adapterPath)) ?? []).count == 1 })
            mock.stop()
            let result = try await run
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first == #"{"mechanism":"offloaded","transport":"bluez","adapter":"hci0"}"#)
            #expect(result.stderr.contains("bluetoothd left the system bus"))
        }
    }

    @Test func monitorWithoutTheManagerFallsBackToDiscoveryAndSaysSo() async throws {
        try await PrivateBusDaemon.with { daemon in
            let mock = try await Self.bluetoothd(on: daemon)
            defer { mock.stop() }
            async let run = CLIHarness.run(
                ["beacons", "monitor", "--json", "--ignore-energy-state", "--region", "office=\(Self.uuid)"],
                environment: Self.environment(daemon))
            #expect(await eventually { await Self.discovering(mock) })
            mock.stop()
            let result = try await run
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first == #"{"mechanism":"bluez-software","transport":"bluez","adapter":"hci0"}"#)
            #expect(lines.count > 1 && lines[1].contains("Experimental = true"))
            #expect(lines.filter { $0.contains("AdvertisementMonitorManager1") }.count == 1)
        }
    }
}
