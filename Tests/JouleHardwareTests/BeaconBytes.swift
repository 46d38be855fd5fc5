@testable import JouleHardware

/// Hand-built byte helpers for the Bluetooth decoder tests, written from the specifications.
enum BeaconBytes {
    static let uuidA: [UInt8] = [
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
    ]
    static let uuidAText = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    static func ad(_ type: UInt8, _ data: [UInt8]) -> [UInt8] { [UInt8(data.count + 1), type] + data }

    static let flags = ad(0x01, [0x06])

    /// Manufacturer data of an iBeacon (company 0x004C little-endian first).
    static func iBeaconData(major: UInt16, minor: UInt16, power: Int8, length: UInt8 = 0x15) -> [UInt8] {
        [0x4C, 0x00, 0x02, length] + uuidA + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: power)]
    }

    static func iBeaconAD(major: UInt16 = 1, minor: UInt16 = 2, power: Int8 = -59, withFlags: Bool = true) -> [UInt8] {
        (withFlags ? flags : []) + ad(0xFF, iBeaconData(major: major, minor: minor, power: power))
    }

    static func eddystoneAD(_ frame: [UInt8]) -> [UInt8] {
        flags + ad(0x03, [0xAA, 0xFE]) + ad(0x16, [0xAA, 0xFE] + frame)
    }

    /// One legacy report: type, address type, address (little-endian), length, data, rssi.
    static func legacyReport(type: UInt8 = 3, addressType: UInt8 = 0, address: UInt64 = 0xC0FFEE000001, data: [UInt8], rssi: Int8) -> [UInt8] {
        [type, addressType] + BluetoothAddress(value: address).littleEndianBytes + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    }

    /// Subevent parameters (after the subevent code) of an LE Advertising Report.
    static func legacyParameters(_ reports: [[UInt8]], count: Int? = nil) -> [UInt8] {
        [UInt8(count ?? reports.count)] + reports.flatMap { $0 }
    }

    /// A whole LE Meta event packet `[0x3E][len][subevent][params]`.
    static func leMeta(_ subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [0x3E, UInt8(parameters.count + 1), subevent] + parameters
    }

    static func extendedReport(
        eventType: UInt16 = 0x0010, addressType: UInt8 = 0, address: UInt64 = 0xC0FFEE000002, txPower: Int8 = 127,
        rssi: Int8, data: [UInt8]
    ) -> [UInt8] {
        [UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType] + BluetoothAddress(value: address).littleEndianBytes
            + [0x01, 0x00, 0xFF, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi), 0x00, 0x00, 0x00] + [UInt8](repeating: 0, count: 6)
            + [UInt8(data.count)] + data
    }

    /// A btsnoop file: header plus (flags, timestamp µs Unix, data) records.
    static func btsnoop(datalink: UInt32 = 1002, version: UInt32 = 1, _ records: [(flags: UInt32, micros: Int64, data: [UInt8])]) -> [UInt8] {
        var out = Array("btsnoop\0".utf8) + be32(version) + be32(datalink)
        for record in records {
            let ts = UInt64(bitPattern: record.micros + BTSnoopRecord.unixEpochOffset)
            out += be32(UInt32(record.data.count)) + be32(UInt32(record.data.count)) + be32(record.flags) + be32(0)
            out += be32(UInt32(ts >> 32)) + be32(UInt32(ts & 0xFFFF_FFFF)) + record.data
        }
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}
