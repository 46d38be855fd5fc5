import Testing
@testable import JouleHardware

@Suite struct HCIEventTests {
    typealias B = BeaconBytes

    @Test func severalInterleavedLegacyReports() {
        let reports = [
            B.legacyReport(address: 0xC0FFEE000001, data: B.iBeaconAD(major: 1), rssi: -60),
            B.legacyReport(type: 0, addressType: 1, address: 0x4A0000000001, data: B.flags + B.ad(0x09, [0x41]), rssi: -90),
            B.legacyReport(type: 4, address: 0xC0FFEE000003, data: B.iBeaconAD(major: 3, withFlags: false), rssi: 127),
        ]
        let event = LEAdvertisingReportEvent(parameters: B.legacyParameters(reports))
        #expect(event.error == nil)
        #expect(event.reports.count == 3)
        #expect(event.reports.map(\.report.address.value) == [0xC0FFEE000001, 0x4A0000000001, 0xC0FFEE000003])
        #expect(event.reports[1].report.addressType == .random)
        #expect(event.reports[0].report.rssi == -60)
        #expect(event.reports[2].report.rssi == nil, "RSSI 127 means unknown")
        #expect(event.reports[2].report.isScanResponse)
        #expect(BeaconFrame.decode(adData: event.reports[2].data) != nil)
    }

    @Test func bogusReportCountKeepsCompleteReports() {
        let one = B.legacyReport(data: B.iBeaconAD(), rssi: -60)
        let event = LEAdvertisingReportEvent(parameters: B.legacyParameters([one], count: 5))
        #expect(event.reports.count == 1)
        #expect(event.error == .truncated(field: "event_type", offset: one.count + 1, needed: 1, available: 0))
    }

    @Test func truncatedReportDataAndRSSI() {
        let one = B.legacyReport(data: B.iBeaconAD(), rssi: -60)
        let params = B.legacyParameters([one, one])
        let cutData = LEAdvertisingReportEvent(parameters: Array(params.dropLast(10)))
        #expect(cutData.reports.count == 1)
        #expect(cutData.error != nil)
        let cutRSSI = LEAdvertisingReportEvent(parameters: Array(params.dropLast(1)))
        #expect(cutRSSI.reports.count == 1)
        if case .truncated(let field, _, _, _) = cutRSSI.error { #expect(field == "rssi") } else { Issue.record("expected truncation") }
        #expect(LEAdvertisingReportEvent(parameters: []).error != nil)
        #expect(LEAdvertisingReportEvent(parameters: [0]).reports.isEmpty)
    }

    @Test func overlongLegacyDataIsSkippedNotTheRest() {
        let long = B.legacyReport(data: [UInt8](repeating: 0x41, count: 40), rssi: -60)
        let good = B.legacyReport(data: B.iBeaconAD(), rssi: -61)
        let event = LEAdvertisingReportEvent(parameters: B.legacyParameters([long, good]))
        #expect(event.reports.count == 1)
        #expect(event.reports.first?.report.rssi == -61)
        #expect(event.error == .invalid(field: "legacy data_length", offset: 9, value: 40))
    }

    @Test func extendedReportsWithFixedHeader() {
        let r1 = B.extendedReport(txPower: -8, rssi: -70, data: B.iBeaconAD(withFlags: false))
        let r2 = B.extendedReport(eventType: 0, addressType: 0xFF, address: 0, rssi: 127, data: B.flags)
        let event = LEExtendedAdvertisingReportEvent(parameters: [2] + r1 + r2)
        #expect(event.error == nil)
        #expect(event.reports.count == 2)
        #expect(event.reports[0].report.txPower == -8)
        #expect(event.reports[0].report.rssi == -70)
        #expect(event.reports[0].report.isExtended)
        #expect(event.reports[1].report.addressType == .anonymous)
        #expect(event.reports[1].report.rssi == nil)
        #expect(event.reports[1].report.txPower == nil)
        let cut = LEExtendedAdvertisingReportEvent(parameters: [2] + r1 + Array(r2.prefix(10)))
        #expect(cut.reports.count == 1)
        #expect(cut.error == .truncated(field: "extended report header", offset: 1 + r1.count, needed: 24, available: 10))
        let cutData = LEExtendedAdvertisingReportEvent(parameters: [1] + Array(r1.dropLast(2)))
        #expect(cutData.reports.isEmpty)
        #expect(cutData.error != nil)
    }

    @Test func eventLengthByteIsCheckedNotTrusted() throws {
        let params = B.legacyParameters([B.legacyReport(data: B.iBeaconAD(), rssi: -60)])
        var packet = B.leMeta(0x02, params)
        packet[1] = packet[1] &+ 20
        guard case .leAdvertisingReport(let event) = try HCIEvent(bytes: packet) else {
            Issue.record("not an advertising report")
            return
        }
        #expect(event.reports.count == 1)
        #expect(event.error == .truncated(field: "HCI event parameters", offset: 2, needed: Int(packet[1]), available: packet.count - 2))
        #expect(throws: DecodeError.self) { try HCIEvent(bytes: [0x3E]) }
        #expect(throws: DecodeError.self) { try HCIEvent(bytes: [0x0E, 0x04, 0x01]) }
    }

    @Test func commandCompleteAndStatus() throws {
        guard case .commandComplete(let opcode, let parameters) = try HCIEvent(bytes: [0x0E, 0x04, 0x01, 0x0B, 0x20, 0x0C]) else {
            Issue.record("not command complete")
            return
        }
        #expect(opcode == 0x200B)
        #expect(parameters == [0x0C])
        guard case .commandStatus(let status, let op) = try HCIEvent(bytes: [0x0F, 0x04, 0x01, 0x01, 0x41, 0x20]) else {
            Issue.record("not command status")
            return
        }
        #expect(status == 1 && op == 0x2041)
    }

    @Test func fastPathSeesTheSameAdverts() {
        let reports = [
            B.legacyReport(data: B.iBeaconAD(major: 1), rssi: -60),
            B.legacyReport(data: B.eddystoneAD([0x10, 0x00, 0x02] + Array("x".utf8)), rssi: -61),
        ]
        let packet = B.leMeta(0x02, B.legacyParameters(reports))
        var kinds: [String] = []
        let problem = packet.withUnsafeBytes { raw in
            BeaconAdvert.forEach(inEvent: raw, timestampMicros: 1) { kinds.append($0.frame.kind) }
        }
        #expect(problem == nil)
        #expect(kinds == ["ibeacon", "eddystone-url"])
    }

    @Test func scanCommandsAreBuiltAsTheSpecSays() {
        #expect(HCICommand.setScanParameters(active: true, intervalSlots: 0x0010, windowSlots: 0x0008).parameters == [1, 0x10, 0, 0x08, 0, 0, 0])
        #expect(HCICommand.setScanEnable(true).opcode == 0x200C)
        let ext = HCICommand.setExtendedScanParameters(active: false, intervalSlots: 0x1F40, windowSlots: 0x0320)
        #expect(ext.opcode == 0x2041)
        #expect(ext.parameters == [0, 0, 1, 0, 0x40, 0x1F, 0x20, 0x03])
        #expect(HCICommand.setExtendedScanEnable(true).parameters == [1, 0, 0, 0, 0, 0])
        #expect(HCICommand.setExtendedScanEnable(false).opcode == 0x2042)
    }
}

@Suite struct HCICommandAnswerTests {
    @Test func completeAndStatusCarryTheirStatus() {
        #expect(HCICommandAnswer(event: [0x0E, 0x04, 0x01, 0x0B, 0x20, 0x0C]) == .status(opcode: 0x200B, 0x0C))
        #expect(HCICommandAnswer(event: [0x0F, 0x04, 0x01, 0x01, 0x41, 0x20]) == .status(opcode: 0x2041, 0x01))
        #expect(HCICommandAnswer(event: [0x3E, 0x01, 0x02]) == nil, "not an answer")
    }

    @Test func anAnswerTooShortForItsStatusIsMalformedNeverSuccess() {
        #expect(HCICommandAnswer(event: [0x0E, 0x03, 0x01, 0x0B, 0x20]) == .malformed(
            opcode: 0x200B, .truncated(field: "Command Complete status", offset: 3, needed: 1, available: 0)))
        #expect(HCICommandAnswer(event: [0x0F, 0x00]) == .malformed(
            opcode: nil, .truncated(field: "Command Status status", offset: 0, needed: 1, available: 0)))
        // The length byte claims more than is there.
        #expect(HCICommandAnswer(event: [0x0E, 0x04, 0x01, 0x0B, 0x20]) == .malformed(
            opcode: 0x200B, .truncated(field: "HCI event parameters", offset: 2, needed: 4, available: 3)))
        #expect(HCICommandAnswer(event: [0x0E]) == .malformed(
            opcode: nil, .truncated(field: "HCI event header", offset: 0, needed: 2, available: 1)))
    }
}
