import Testing
@testable import JouleHardware

@Suite struct BeaconFrameTests {
    @Test func iBeaconDecodes() throws {
        let beacon = try IBeacon(manufacturerData: BeaconBytes.iBeaconData(major: 0x1234, minor: 0xFFFF, power: -59))
        #expect(beacon.uuid.description == BeaconBytes.uuidAText)
        #expect(beacon.major == 0x1234)
        #expect(beacon.minor == 0xFFFF)
        #expect(beacon.txPower == -59)
    }

    @Test func iBeaconWithAndWithoutFlags() {
        for withFlags in [true, false] {
            guard case .iBeacon(let b) = BeaconFrame.decode(adData: BeaconBytes.iBeaconAD(major: 7, minor: 8, withFlags: withFlags)) else {
                Issue.record("no iBeacon (flags: \(withFlags))")
                continue
            }
            #expect(b.major == 7 && b.minor == 8)
        }
    }

    @Test func iBeaconRejectsWrongLengthCompanyAndTruncation() {
        #expect(throws: DecodeError.invalid(field: "iBeacon length", offset: 3, value: 0x14)) {
            try IBeacon(manufacturerData: BeaconBytes.iBeaconData(major: 1, minor: 1, power: -59, length: 0x14))
        }
        var other = BeaconBytes.iBeaconData(major: 1, minor: 1, power: -59)
        other[0] = 0x4D
        #expect(throws: DecodeError.mismatch("not Apple manufacturer data")) { try IBeacon(manufacturerData: other) }
        let short = Array(BeaconBytes.iBeaconData(major: 1, minor: 1, power: -59).dropLast(3))
        #expect(throws: DecodeError.truncated(field: "iBeacon minor", offset: 22, needed: 2, available: 0)) {
            try IBeacon(manufacturerData: short)
        }
        #expect(BeaconFrame.decode(adData: BeaconBytes.ad(0xFF, short)) == nil)
    }

    @Test func altBeaconDecodes() throws {
        let id: [UInt8] = Array(BeaconBytes.uuidA) + [0x00, 0x01, 0x00, 0x02]
        let data: [UInt8] = [0x18, 0x01, 0xBE, 0xAC] + id + [UInt8(bitPattern: -65), 0x42]
        let beacon = try AltBeacon(manufacturerData: data)
        #expect(beacon.manufacturer == 0x0118)
        #expect(beacon.id.description == "e2c56db5dffb48d2b060d0f5a71096e000010002")
        #expect(beacon.txPower == -65)
        #expect(beacon.uuid.description == BeaconBytes.uuidAText)
        #expect(beacon.major == 1 && beacon.minor == 2)
        #expect(throws: DecodeError.self) { try AltBeacon(manufacturerData: Array(data.prefix(20))) }
        #expect(throws: DecodeError.mismatch("not an AltBeacon")) { try AltBeacon(manufacturerData: [0x18, 0x01, 0xBE, 0xAD] + id) }
    }

    @Test func eddystoneUIDWithAndWithoutReservedBytes() throws {
        let body: [UInt8] = [0x00, 0xEC] + Array(0..<10) + [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
        for frame in [body, body + [0, 0]] {
            let uid = try EddystoneUID(frame: frame)
            #expect(uid.txPower == -20)
            #expect(uid.namespace.description == "00010203040506070809")
            #expect(uid.instance.description == "aabbccddeeff")
        }
        #expect(throws: DecodeError.self) { try EddystoneUID(frame: Array(body.prefix(14))) }
    }

    @Test func eddystoneURLExpansionCodes() throws {
        let url = try EddystoneURL(frame: [0x10, 0xF6, 0x01] + Array("joule".utf8) + [0x07] + Array("/x".utf8))
        #expect(url.url == "https://www.joule.com/x")
        #expect(url.txPower == -10)
        let all = try EddystoneURL(frame: [0x10, 0x00, 0x02] + Array(0..<14))
        #expect(all.url == "http://.com/.org/.edu/.net/.info/.biz/.gov/.com.org.edu.net.info.biz.gov")
        // The longest a frame can expand to (17 × ".info/"), a short one (a small string) and an
        // empty body: each written straight into its String.
        let longest = try EddystoneURL(frame: [0x10, 0x00, 0x01] + Array(repeating: 0x04, count: 17))
        #expect(longest.url == "https://www." + String(repeating: ".info/", count: 17))
        #expect(try EddystoneURL(frame: [0x10, 0x00, 0x03] + Array("a.b".utf8)).url == "https://a.b")
        #expect(try EddystoneURL(frame: [0x10, 0x00, 0x00]).url == "http://www.")
        #expect(throws: DecodeError.invalid(field: "Eddystone-URL scheme", offset: 2, value: 4)) {
            try EddystoneURL(frame: [0x10, 0x00, 0x04, 0x61])
        }
        #expect(throws: DecodeError.invalid(field: "Eddystone-URL byte", offset: 4, value: 0x20)) {
            try EddystoneURL(frame: [0x10, 0x00, 0x00, 0x61, 0x20])
        }
        #expect(throws: DecodeError.invalid(field: "Eddystone-URL byte", offset: 3, value: 0x80)) {
            try EddystoneURL(frame: [0x10, 0x00, 0x00, 0x80])
        }
    }

    @Test func eddystoneTLMValuesAndUnknowns() throws {
        let tlm = try EddystoneTLM(frame: [0x20, 0x00, 0x0B, 0xB8, 0x17, 0x80, 0, 0, 0x04, 0xD2, 0, 0x01, 0x81, 0xCD])
        #expect(tlm.batteryMv == 3000)
        #expect(tlm.temperatureC == 23.5)
        #expect(tlm.advCount == 1234)
        #expect(tlm.uptimeS == 9876.5)
        let negative = try EddystoneTLM(frame: [0x20, 0x00, 0, 1, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(negative.temperatureC == -0.5)
        let unknown = try EddystoneTLM(frame: [0x20, 0x00, 0, 0, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(unknown.batteryMv == nil)
        #expect(unknown.temperatureC == nil)
        #expect(throws: DecodeError.invalid(field: "Eddystone-TLM version", offset: 1, value: 1)) {
            try EddystoneTLM(frame: [0x20, 0x01] + [UInt8](repeating: 0, count: 12))
        }
        #expect(throws: DecodeError.self) { try EddystoneTLM(frame: [0x20, 0x00, 0x0B]) }
    }

    @Test func eddystoneFramesThroughServiceData() {
        let url = BeaconBytes.eddystoneAD([0x10, 0xEE, 0x03] + Array("a.b".utf8))
        #expect(BeaconFrame.decode(adData: url)?.kind == "eddystone-url")
        // Another service UUID, and an unknown Eddystone frame type, are not beacons.
        #expect(BeaconFrame.decode(adData: BeaconBytes.ad(0x16, [0xAB, 0xFE, 0x10, 0x00, 0x00])) == nil)
        #expect(BeaconFrame.decode(adData: BeaconBytes.eddystoneAD([0x30, 0x00])) == nil)
        #expect(BeaconFrame.decode(adData: BeaconBytes.ad(0x16, [0xAA, 0xFE])) == nil)
    }

    @Test func adStructuresStopAtBadOrZeroLength() {
        let good = BeaconBytes.flags + BeaconBytes.ad(0x09, Array("name".utf8))
        let parsed = ADStructures.parse(good)
        #expect(parsed.structures.map(\.type) == [0x01, 0x09])
        #expect(parsed.error == nil)

        let overrun = BeaconBytes.flags + [0x1E, 0xFF, 0x4C, 0x00]
        let bad = ADStructures.parse(overrun)
        #expect(bad.structures.map(\.type) == [0x01])
        #expect(bad.error == .truncated(field: "AD structure", offset: 3, needed: 31, available: 4))

        let padded = ADStructures.parse(BeaconBytes.flags + [0x00, 0xFF, 0xFF])
        #expect(padded.structures.count == 1)
        #expect(padded.error == nil)
        #expect(ADStructures.parse([]).structures.isEmpty)
        // A beacon after a bad length is never reached; one before it is found.
        #expect(BeaconFrame.decode(adData: [0x1E, 0xFF] + BeaconBytes.iBeaconAD()) == nil)
        #expect(BeaconFrame.decode(adData: BeaconBytes.iBeaconAD() + [0x1E, 0xFF]) != nil)
    }

    @Test func addressesAndUUIDsRoundTrip() {
        let address = BluetoothAddress(value: 0xC0FFEE0000A1)
        #expect(address.description == "C0:FF:EE:00:00:A1")
        #expect(BluetoothAddress("c0:ff:ee:00:00:a1") == address)
        #expect(address.littleEndianBytes == [0xA1, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(BluetoothAddress("C0:FF:EE:00:00") == nil)
        #expect(BluetoothAddress("C0:FF:EE:00:00:GG") == nil)
        #expect(BeaconUUID(BeaconBytes.uuidAText.lowercased())?.description == BeaconBytes.uuidAText)
        #expect(BeaconUUID("E2C56DB5DFFB48D2B060D0F5A71096E0") == nil)
        #expect(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096EX") == nil)
    }

    /// Every scheme and expansion code decodes to the specification's text (the decoder copies
    /// slices of one static table).
    @Test func eddystoneURLCodesExpandToTheirTexts() throws {
        for (scheme, prefix) in EddystoneURL.schemes.enumerated() {
            for (code, text) in EddystoneURL.expansions.enumerated() {
                let frame: [UInt8] = [0x10, 0xEE, UInt8(scheme), UInt8(ascii: "a"), UInt8(code), UInt8(ascii: "b")]
                #expect(try EddystoneURL(frame: frame).url == prefix + "a" + text + "b")
            }
        }
    }
}
