import Foundation
import JouleHardware
import JouleTesting
import Testing

/// `joule beacons --transport` against python3-dbusmock's bluez5 template, the CLI's system bus
/// pointed at a private dbus-daemon.
@Suite(
    .serialized,
    .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"),
    .enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
struct BeaconsBlueZCLITests {
    static let adapterPath = DBusMock.bluezAdapterPath
    static let devicePath = adapterPath + "/dev_C0_FF_EE_00_00_01"
    static let uuid = DBusMock.beaconUUID
    static let uuidBytes = DBusMock.beaconUUIDBytes

    static func environment(_ daemon: PrivateBusDaemon) -> [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": daemon.address] }

    static func bluetoothd(on daemon: PrivateBusDaemon, manager: Bool = false) async throws -> DBusMock {
        try await DBusMock.bluetoothd(address: daemon.address, monitorFeatures: manager ? ["controller-patterns"] : nil)
    }

    static func discovering(_ mock: DBusMock) async -> Bool { await mock.bluezDiscovering() }

    static func advertise(_ mock: DBusMock, rssi: Int16) async throws {
        try await mock.call("AddDevice", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("C0:FF:EE:00:00:01"), .string("beacon")])
        try await mock.setBluezDevice(devicePath, "RSSI", .int16(rssi))
        try await mock.setBluezDevice(devicePath, "ManufacturerData", DBusMock.iBeaconManufacturerData(uuid: uuidBytes, major: 7, minor: 9))
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
