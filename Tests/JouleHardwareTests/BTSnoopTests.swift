import Foundation
import Testing
@testable import JouleHardware

@Suite struct BTSnoopTests {
    typealias B = BeaconBytes
    static let advert = [UInt8(0x04)] + B.leMeta(0x02, B.legacyParameters([B.legacyReport(data: B.iBeaconAD(), rssi: -60)]))

    func records(_ reader: BTSnoopReader) -> [(HCIPacketType, Int64?, Int)] {
        var out: [(HCIPacketType, Int64?, Int)] = []
        while let r = reader.next() { out.append((r.type, r.timestampMicros, r.payload.count)) }
        return out
    }

    @Test func headerErrors() {
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: Array("btsnoep\0".utf8) + B.be32(1) + B.be32(1002)) }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: Array("btsnoop\0".utf8) + [0, 0]) }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: []) }
        do {
            _ = try BTSnoopReader(bytes: B.btsnoop(datalink: 1003, []), name: "x.btsnoop")
            Issue.record("datalink 1003 accepted")
        } catch {
            #expect("\(error)".contains("unsupported btsnoop datalink 1003"))
        }
        #expect(throws: BTSnoopError.self) { try BTSnoopReader(bytes: B.btsnoop(version: 2, [])) }
    }

    @Test func missingFileIsAnIOError() {
        do {
            _ = try BTSnoopReader(path: "/nonexistent/joule.btsnoop")
            Issue.record("opened a missing file")
        } catch {
            #expect("\(error)".contains("ENOENT"))
        }
    }

    @Test func timestampsAreUnixMicroseconds() throws {
        let reader = try BTSnoopReader(bytes: B.btsnoop([(3, 1_700_000_000_250_000, Self.advert)]))
        let got = records(reader)
        #expect(got.count == 1)
        #expect(got.first?.1 == 1_700_000_000_250_000)
        #expect(got.first?.0 == .event)
        #expect(got.first?.2 == Self.advert.count - 1, "the H4 type byte is stripped")
        #expect(reader.warning == nil)
    }

    @Test func truncatedRecordsEndWithAWarning() throws {
        let file = B.btsnoop([(3, 1, Self.advert), (3, 2, Self.advert)])
        let cutBody = try BTSnoopReader(bytes: Array(file.dropLast(5)))
        #expect(records(cutBody).count == 1)
        #expect(cutBody.warning?.record == 1)
        #expect(cutBody.warning?.detail.contains("truncated record") == true)
        let cutHeader = try BTSnoopReader(bytes: Array(file.dropLast(Self.advert.count + 10)))
        #expect(records(cutHeader).count == 1)
        #expect(cutHeader.warning?.detail.contains("truncated record header") == true)
        let headerOnly = try BTSnoopReader(bytes: B.btsnoop([]))
        #expect(records(headerOnly).isEmpty)
        #expect(headerOnly.warning == nil)
    }

    @Test func absurdLengthIsCorruptionNotAnAllocation() throws {
        var file = B.btsnoop([(3, 1, Self.advert)])
        file.replaceSubrange(20..<24, with: B.be32(0xFFFF_FFF0))
        let reader = try BTSnoopReader(bytes: file)
        #expect(records(reader).isEmpty)
        #expect(reader.warning?.detail.contains("not plausible") == true)
    }

    @Test func datalinksClassifyPackets() throws {
        let event = Array(Self.advert.dropFirst())
        let raw = try BTSnoopReader(bytes: B.btsnoop(datalink: 1001, [(3, 1, event), (2, 2, [0x0C, 0x20, 0x02, 0x01, 0x00]), (1, 3, [0x01, 0x20])]))
        #expect(raw.datalink == .hciUnencapsulated)
        #expect(records(raw).map(\.0) == [.event, .command, .aclData])
        let monitor = try BTSnoopReader(bytes: B.btsnoop(datalink: 2001, [(0, 0, [UInt8](repeating: 0, count: 16)), (3, 1, event), (2, 2, [0x0C, 0x20, 0x00]), (12, 3, Array("note".utf8))]))
        #expect(records(monitor).map(\.0) == [.other, .event, .command, .other])
        let h4 = try BTSnoopReader(bytes: B.btsnoop([(3, 0, []), (3, 1, [0x09, 0x00]), (3, 2, Self.advert)]))
        #expect(records(h4).map(\.0) == [.other, .event], "empty H4 records are skipped, unknown types kept as other")
    }

    @Test func writerRoundTripsThroughTheReader() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-\(UInt32.random(in: 0...UInt32.max)).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BTSnoopWriter(path: path)
        try writer.write(type: .command, received: false, payload: [0x0C, 0x20, 0x02, 0x01, 0x00], timestampMicros: 1_700_000_000_000_000)
        try writer.write(type: .event, received: true, payload: Array(Self.advert.dropFirst()), timestampMicros: 1_700_000_000_500_000)
        try writer.close()
        let reader = try BTSnoopReader(path: path)
        #expect(reader.datalink == .h4)
        var got: [(HCIPacketType, Bool, Int64?, [UInt8])] = []
        while let r = reader.next() { got.append((r.type, r.received, r.timestampMicros, Array(r.payload))) }
        #expect(got.count == 2)
        #expect(got.first?.0 == .command && got.first?.1 == false)
        #expect(got.last?.0 == .event && got.last?.1 == true)
        #expect(got.last?.2 == 1_700_000_000_500_000)
        #expect(got.last?.3 == Array(Self.advert.dropFirst()))
    }
}
