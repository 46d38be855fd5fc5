/// One btsnoop record, borrowed from the reader's buffer: valid until the next `next()` call.
public struct BTSnoopRecord {
    /// Zero-based record number.
    public var index: Int
    /// Unix time in microseconds; nil when the stored timestamp is out of range.
    public var timestampMicros: Int64?
    public var flags: UInt32
    public var originalLength: Int
    public var type: HCIPacketType
    /// True for controller-to-host traffic, false for host-to-controller.
    public var received: Bool
    /// The packet without its H4 type byte (or monitor header).
    public var payload: UnsafeRawBufferPointer

    /// btsnoop timestamps count microseconds since midnight, 1 January of year 0.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    static func unixMicros(fromBTSnoop raw: Int64) -> Int64? {
        let (value, overflow) = raw.subtractingReportingOverflow(unixEpochOffset)
        return overflow ? nil : value
    }
}
