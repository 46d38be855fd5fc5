import Foundation
import Testing
@testable import JouleWire
@testable import JouleHardware

/// The generated captures in hw-fixtures/bluetooth against the expected lines beside them
/// (written from the specifications by scripts/gen-btsnoop-fixtures.py).
@Suite struct BeaconFixtureTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("hw-fixtures/bluetooth")

    static let names = [
        "all-kinds-h4", "all-kinds-raw1001", "all-kinds-monitor2001", "multi-report-h4", "extended-h4",
        "malformed-h4", "truncated-record-h4", "truncated-header-h4",
    ]

    /// Decodes a capture the way `scan --json --replay` does, with both JSON writers.
    static func decode(_ name: String) throws -> (fast: String, reference: String, warning: BTSnoopWarning?) {
        let reader = try BTSnoopReader(path: directory.appendingPathComponent(name + ".btsnoop").path)
        let fast = JSONLineBuffer()
        var reference = ""
        while let record = reader.next() {
            guard record.type == .event, record.received else { continue }
            BeaconAdvert.forEach(inEvent: record.payload, timestampMicros: record.timestampMicros) { advert in
                fast.appendLine(advert)
                reference += JSONValue.object(advert.jsonObject).serialized + "\n"
            }
        }
        return (String(decoding: fast.bytes, as: UTF8.self), reference, reader.warning)
    }

    @Test(arguments: names) func replayGivesExactlyTheExpectedAdverts(name: String) throws {
        let expected = try String(contentsOf: Self.directory.appendingPathComponent(name + ".expected.ndjson"), encoding: .utf8)
        let got = try Self.decode(name)
        #expect(got.fast == expected)
        #expect(got.reference == got.fast, "the fast writer must match the JSONValue serialization")
        #expect((got.warning != nil) == name.hasPrefix("truncated"))
    }

    @Test func fastTimestampsMatchTheReferenceSerializer() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Int64] = [0, 1, 999_999, 1_000_000, 1_700_000_000_000_000, 1_700_000_000_000_001, 1_700_000_000_100_000, -1, -1_500_000]
        for _ in 0..<2000 { samples.append(Int64.random(in: 0...4_000_000_000_000_000, using: &generator)) }
        for micros in samples {
            let buffer = JSONLineBuffer()
            buffer.appendTimestamp(micros)
            let fast = String(decoding: buffer.bytes, as: UTF8.self)
            #expect(fast == JSONValue.from(Double(micros) / 1_000_000).serialized, "µs \(micros)")
        }
    }

    /// Random adverts of every identifier kind through one buffer, so the remembered seconds
    /// are reused and replaced, and every number, UUID and hex group width is crossed.
    @Test func fastLinesMatchTheReferenceForRandomAdverts() {
        var generator = SystemRandomNumberGenerator()
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let buffer = JSONLineBuffer()
        var micros: Int64 = 1_700_000_000_000_000
        for i in 0..<20_000 {
            // Mostly the same second, sometimes a jump (and now and then a whole second exactly).
            micros += Int64.random(in: 0...400_000, using: &generator)
            if i % 97 == 0 { micros += Int64.random(in: 0...9_000_000_000, using: &generator) }
            if i % 101 == 0 { micros -= micros % 1_000_000 }
            let frame: BeaconFrame
            switch i % 3 {
            case 0:
                let uuid = BeaconUUID(high: UInt64.random(in: 0...UInt64.max, using: &generator),
                                      low: UInt64.random(in: 0...UInt64.max, using: &generator))
                frame = .iBeacon(IBeacon(uuid: uuid, major: UInt16.random(in: 0...UInt16.max, using: &generator),
                                         minor: UInt16.random(in: 0...UInt16.max, using: &generator),
                                         txPower: Int8.random(in: Int8.min...Int8.max, using: &generator)))
            case 1:
                frame = .altBeacon(AltBeacon(manufacturer: UInt16.random(in: 0...UInt16.max, using: &generator),
                                             id: BeaconIdentifier(bytes(20)), txPower: Int8.random(in: Int8.min...Int8.max, using: &generator)))
            default:
                frame = .eddystoneUID(EddystoneUID(txPower: Int8.random(in: Int8.min...Int8.max, using: &generator),
                                                   namespace: BeaconIdentifier(bytes(10)), instance: BeaconIdentifier(bytes(6))))
            }
            let advert = BeaconAdvert(
                timestampMicros: i % 500 == 7 ? nil : micros,
                address: BluetoothAddress(value: UInt64.random(in: 0...0xFFFF_FFFF_FFFF, using: &generator)),
                addressType: .public, rssi: i % 50 == 3 ? nil : Int8.random(in: Int8.min...Int8.max, using: &generator),
                frame: frame)
            let before = buffer.count
            buffer.appendLine(advert)
            let fast = String(decoding: UnsafeRawBufferPointer(rebasing: buffer.bytes[before...]), as: UTF8.self)
            let reference = JSONValue.object(advert.jsonObject).serialized + "\n"
            if fast != reference {
                Issue.record("advert \(i): \(fast) vs \(reference)")
                return
            }
        }
    }

    @Test func fastTelemetryNumbersMatchTheReferenceForEveryTemperature() {
        var generator = SystemRandomNumberGenerator()
        for raw in Int16.min...Int16.max {
            let tlm = EddystoneTLM(
                batteryMv: raw == 0 ? nil : Int(UInt16(bitPattern: raw)), temperatureRaw: raw == Int16.min ? nil : raw,
                advCount: UInt32.random(in: 0...UInt32.max, using: &generator),
                uptimeTenths: UInt32.random(in: 0...UInt32.max, using: &generator))
            let advert = BeaconAdvert(
                timestampMicros: 1_700_000_000_000_001, address: BluetoothAddress(value: 1), addressType: .random, rssi: -1,
                frame: .eddystoneTLM(tlm))
            let buffer = JSONLineBuffer()
            buffer.appendLine(advert)
            let fast = String(decoding: buffer.bytes, as: UTF8.self)
            let reference = JSONValue.object(advert.jsonObject).serialized + "\n"
            if fast != reference {
                Issue.record("raw \(raw): \(fast) vs \(reference)")
                return
            }
        }
    }

    @Test func anonymousAdvertisersHaveNullAddress() {
        let advert = BeaconAdvert(
            timestampMicros: nil, address: BluetoothAddress(value: 0), addressType: .anonymous, rssi: nil,
            frame: .eddystoneURL(EddystoneURL(txPower: -3, url: "https://a\"b")))
        let buffer = JSONLineBuffer()
        buffer.appendLine(advert)
        let line = String(decoding: buffer.bytes, as: UTF8.self)
        #expect(line == JSONValue.object(advert.jsonObject).serialized + "\n")
        #expect(line.hasPrefix("{\"timestamp\":null,\"address\":null,\"addressType\":null,\"rssi\":null,"))
    }
}
