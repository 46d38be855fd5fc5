/// HCI LE Meta subevent 0x0D, LE Extended Advertising Report: each report has a 24-byte fixed
/// part (event type, address, PHYs, SID, Tx power, RSSI, periodic interval, direct address,
/// data length) followed by its data. Lengths are checked like the legacy event's.
public struct LEExtendedAdvertisingReportEvent: Sendable {
    public static let subeventCode: UInt8 = 0x0D
    public static let fixedReportLength = 24

    public var reports: [(report: AdvertisingReport, data: [UInt8])]
    public var error: DecodeError?

    public init(parameters: [UInt8]) {
        var reports: [(report: AdvertisingReport, data: [UInt8])] = []
        error = parameters.withUnsafeBytes { raw in
            Self.forEachReport(parameters: raw) { reports.append(($0, Array($1))) }
        }
        self.reports = reports
    }

    /// Calls `body` for each complete report; returns what ended the event early, if anything.
    @discardableResult
    public static func forEachReport(
        parameters: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
    ) -> DecodeError? {
        var cursor = ByteCursor(parameters)
        do throws(DecodeError) {
            let count = Int(try cursor.u8("num_reports"))
            for _ in 0..<count {
                // Take the fixed part in one checked step, then read it without further checks.
                let fixed = try cursor.take(fixedReportLength, "extended report header")
                let eventType = UInt16(fixed[0]) | UInt16(fixed[1]) << 8
                let address = BluetoothAddress(littleEndian: UnsafeRawBufferPointer(rebasing: fixed[3..<9]))
                let txPower = Int8(bitPattern: fixed[12])
                let rssi = Int8(bitPattern: fixed[13])
                let length = Int(fixed[23])
                let data = try cursor.take(length, "extended advertising data")
                body(
                    AdvertisingReport(
                        eventType: eventType, isExtended: true, addressType: AddressType(code: fixed[2]),
                        address: address, rssi: AdvertisingReport.signal(rssi),
                        txPower: AdvertisingReport.signal(txPower)),
                    data)
            }
        } catch {
            return error
        }
        return nil
    }
}
