/// HCI LE Meta subevent 0x02, LE Advertising Report. Reports follow one another, each as
/// `type, address type, address, length, data, rssi`, which is how Linux parses them and how
/// controllers send them. `num_reports` and every length are checked against the bytes present:
/// complete reports before a truncation are kept, and the problem is reported beside them.
public struct LEAdvertisingReportEvent: Sendable {
    public static let subeventCode: UInt8 = 0x02
    /// Legacy advertising data holds at most 31 bytes.
    public static let maxDataLength = 31

    public var reports: [(report: AdvertisingReport, data: [UInt8])]
    /// What cut the event short or was skipped, if anything.
    public var error: DecodeError?

    /// Decodes the subevent parameters (the bytes after the subevent code).
    public init(parameters: [UInt8]) {
        var reports: [(report: AdvertisingReport, data: [UInt8])] = []
        error = parameters.withUnsafeBytes { raw in
            Self.forEachReport(parameters: raw) { reports.append(($0, Array($1))) }
        }
        self.reports = reports
    }

    /// Calls `body` for each well-formed report with its AD data, in order. Returns the first
    /// problem met: a report whose data is over 31 bytes is skipped (as Linux does), a report
    /// running past the event ends it.
    @discardableResult
    public static func forEachReport(
        parameters: UnsafeRawBufferPointer, _ body: (AdvertisingReport, UnsafeRawBufferPointer) -> Void
    ) -> DecodeError? {
        var cursor = ByteCursor(parameters)
        var firstError: DecodeError?
        do throws(DecodeError) {
            let count = Int(try cursor.u8("num_reports"))
            for _ in 0..<count {
                let eventType = try cursor.u8("event_type")
                let addressType = try cursor.u8("address_type")
                let address = BluetoothAddress(littleEndian: try cursor.take(6, "address"))
                let lengthOffset = cursor.offset
                let length = Int(try cursor.u8("data_length"))
                let data = try cursor.take(length, "advertising data")
                let rssi = try cursor.i8("rssi")
                guard length <= maxDataLength else {
                    if firstError == nil {
                        firstError = .invalid(field: "legacy data_length", offset: lengthOffset, value: length)
                    }
                    continue
                }
                body(
                    AdvertisingReport(
                        eventType: UInt16(eventType), isExtended: false,
                        addressType: AddressType(code: addressType), address: address,
                        rssi: AdvertisingReport.signal(rssi)),
                    data)
            }
        } catch {
            return firstError ?? error
        }
        return firstError
    }
}
