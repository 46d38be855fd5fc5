@testable import JouleWire
@testable import JouleHardware
import Testing

/// The advert rebuilt from Device1 properties decodes, through the one decode path, to the
/// same JSON as the controller's own report of the same advert.
@Suite struct BlueZDeviceTests {
    static func bytes(_ data: [UInt8]) -> BusValue { .array(elementSignature: "y", data.map(BusValue.byte)) }

    static func manufacturerData(_ entries: [(UInt16, [UInt8])]) -> BusValue {
        .array(elementSignature: "{qv}", entries.map { .dictEntry(.uint16($0.0), .variant(bytes($0.1))) })
    }

    static func serviceData(_ entries: [(String, [UInt8])]) -> BusValue {
        .array(elementSignature: "{sv}", entries.map { .dictEntry(.string($0.0), .variant(bytes($0.1))) })
    }

    /// Every JSON line both paths print for one event, timestamps aside.
    static func lines(_ event: [UInt8]) -> [JSONObject] {
        var out: [JSONObject] = []
        _ = event.withUnsafeBytes { raw in
            BeaconAdvert.forEach(inEvent: raw, timestampMicros: nil) { out.append($0.jsonObject) }
        }
        return out
    }

    static func hci(_ data: [UInt8], rssi: Int8, addressType: UInt8 = 0) -> [UInt8] {
        BeaconBytes.leMeta(0x02, BeaconBytes.legacyParameters([BeaconBytes.legacyReport(addressType: addressType, data: data, rssi: rssi)]))
    }

    static func bluez(_ properties: [(String, BusValue)]) throws -> [UInt8] {
        var device = BlueZDevice()
        let update = device.apply([("Address", .string("C0:FF:EE:00:00:01"))] + properties)
        #expect(update.advertData)
        return try #require(device.advertisingReportEvent(manufacturer: update.manufacturerData, service: update.serviceData))
    }

    @Test func iBeaconMatchesTheHCIPath() throws {
        let data = BeaconBytes.iBeaconData(major: 7, minor: 9, power: -59)
        let viaBlueZ = try Self.bluez([
            ("AddressType", .string("public")), ("RSSI", .int16(-61)), ("TxPower", .int16(4)),
            ("ManufacturerData", Self.manufacturerData([(0x004C, Array(data.dropFirst(2)))])),
        ])
        let viaHCI = Self.lines(Self.hci(BeaconBytes.iBeaconAD(major: 7, minor: 9, power: -59), rssi: -61))
        #expect(viaHCI.count == 1)
        #expect(Self.lines(viaBlueZ) == viaHCI)
    }

    @Test func altBeaconOfARandomAddressMatches() throws {
        let id = BeaconBytes.uuidA + [0x00, 0x01, 0x00, 0x02]
        let payload: [UInt8] = [0xBE, 0xAC] + id + [UInt8(bitPattern: -60), 0x00]
        let viaBlueZ = try Self.bluez([
            ("AddressType", .string("random")), ("RSSI", .int16(-70)),
            ("ManufacturerData", Self.manufacturerData([(0x0118, payload)])),
        ])
        let viaHCI = Self.lines(Self.hci(BeaconBytes.ad(0xFF, [0x18, 0x01] + payload), rssi: -70, addressType: 1))
        #expect(viaHCI.first?["kind"] == .string("altbeacon"))
        #expect(Self.lines(viaBlueZ) == viaHCI)
    }

    @Test func eddystoneServiceDataMatches() throws {
        let frame: [UInt8] = [0x10, 0xEB, 0x03] + Array("joule".utf8) + [0x07]
        let viaBlueZ = try Self.bluez([
            ("RSSI", .int16(-50)), ("ServiceData", Self.serviceData([("0000feaa-0000-1000-8000-00805f9b34fb", frame)])),
        ])
        let viaHCI = Self.lines(Self.hci(BeaconBytes.eddystoneAD(frame), rssi: -50))
        #expect(viaHCI.first?["kind"] == .string("eddystone-url"))
        #expect(Self.lines(viaBlueZ) == viaHCI)
    }

    @Test func unknownRSSIIsNullAsFromTheController() throws {
        let data = BeaconBytes.iBeaconData(major: 1, minor: 2, power: -59)
        let event = try Self.bluez([("ManufacturerData", Self.manufacturerData([(0x004C, Array(data.dropFirst(2)))]))])
        #expect(Self.lines(event).first?["rssi"] == .null)
    }

    @Test func longDataBecomesAnExtendedReport() throws {
        // Two iBeacon payloads (27 bytes each) exceed legacy's 31 bytes.
        let data = Array(BeaconBytes.iBeaconData(major: 1, minor: 2, power: -59).dropFirst(2))
        let event = try Self.bluez([
            ("RSSI", .int16(-40)), ("ManufacturerData", Self.manufacturerData([(0x004C, data), (0x0059, data)])),
        ])
        #expect(event[2] == LEExtendedAdvertisingReportEvent.subeventCode)
        #expect(Self.lines(event).first?["kind"] == .string("ibeacon"))
        #expect(Self.lines(event).first?["rssi"] == .int(-40))
    }

    @Test func updatesSayWhatTheAdvertCarried() {
        var device = BlueZDevice()
        #expect(!device.apply([("RSSI", .int16(-80))]).advertData)
        #expect(device.rssi == -80)
        let update = device.apply([("ServiceData", Self.serviceData([("0000feaa-0000-1000-8000-00805f9b34fb", [0x20])]))])
        #expect(update.serviceData && !update.manufacturerData)
        device.apply([], invalidated: ["RSSI"])
        #expect(device.rssi == nil)
        // Wrong types and non-16-bit UUIDs are ignored, not trusted.
        device.apply([("RSSI", .string("loud")), ("ServiceData", Self.serviceData([("6e400001-b5a3-f393-e0a9-e50e24dcca9e", [1])]))])
        #expect(device.rssi == nil)
        #expect(device.serviceData.isEmpty)
        #expect(device.advertisingReportEvent() == nil)
    }

    @Test func shortUUIDs() {
        #expect(BlueZDevice.shortUUID("0000FEAA-0000-1000-8000-00805F9B34FB") == 0xFEAA)
        #expect(BlueZDevice.shortUUID("0001feaa-0000-1000-8000-00805f9b34fb") == nil)
        #expect(BlueZDevice.shortUUID("feaa") == nil)
    }
}
