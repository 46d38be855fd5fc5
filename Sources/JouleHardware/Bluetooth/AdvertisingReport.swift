/// One advertising report from an LE Advertising Report (legacy) or LE Extended Advertising
/// Report event, without its AD data (which decoders borrow from the event's bytes).
public struct AdvertisingReport: Sendable, Hashable {
    /// Legacy: 0 ADV_IND … 4 SCAN_RSP. Extended: the 16-bit event type bit field.
    public var eventType: UInt16
    public var isExtended: Bool
    public var addressType: AddressType
    public var address: BluetoothAddress
    /// Received signal strength in dBm; nil when the controller sent 127 (unknown).
    public var rssi: Int8?
    /// Extended reports only: the advertiser's Tx power; nil when 127 (not available).
    public var txPower: Int8?

    public init(
        eventType: UInt16, isExtended: Bool, addressType: AddressType, address: BluetoothAddress,
        rssi: Int8?, txPower: Int8? = nil
    ) {
        self.eventType = eventType
        self.isExtended = isExtended
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
    }

    /// 127 is the specification's "not available" for RSSI and Tx power.
    static func signal(_ raw: Int8) -> Int8? { raw == 127 ? nil : raw }

    /// Whether this is a scan response (legacy type 4, or extended bit 3).
    public var isScanResponse: Bool { isExtended ? eventType & 0x08 != 0 : eventType == 4 }
}
