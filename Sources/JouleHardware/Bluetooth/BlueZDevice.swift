/// A remote device as bluetoothd's `org.bluez.Device1` properties describe it, and the advert
/// rebuilt from them: the AD structures (manufacturer data, 16-bit service data, Tx power
/// level) inside the HCI LE Advertising Report a controller would have sent. The bytes then go
/// through the one decode path (`BeaconAdvert.forEach(inEvent:)`), so a beacon heard through
/// BlueZ prints exactly what the HCI path prints for the same advert.
public struct BlueZDevice: Sendable, Equatable {
    public struct Field: Sendable, Equatable {
        /// The company id (manufacturer data) or the 16-bit service UUID (service data).
        public var id: UInt16
        public var data: [UInt8]

        public init(id: UInt16, data: [UInt8]) {
            self.id = id
            self.data = data
        }
    }

    public var address: BluetoothAddress?
    public var addressType: AddressType = .public
    public var rssi: Int8?
    public var txPower: Int8?
    public var manufacturerData: [Field] = []
    /// Service data under 16-bit UUIDs (`0000xxxx-0000-1000-8000-00805f9b34fb`); a beacon
    /// never uses longer ones, and their AD types are not decoded.
    public var serviceData: [Field] = []

    public init() {}

    /// What one PropertiesChanged (or InterfacesAdded) said about the advert.
    public struct Update: Sendable, Equatable {
        /// ManufacturerData or ServiceData came with it: with `DuplicateData` bluetoothd clears
        /// and re-sets them for every advert, so this is one advert received.
        public var advertData = false
        public var manufacturerData = false
        public var serviceData = false
    }

    /// Applies Device1 properties (`a{sv}` entries); names in `invalidated` become unknown.
    /// Values of the wrong type are ignored, as a missing property would be.
    @discardableResult
    public mutating func apply(_ properties: [(String, BusValue)], invalidated: [String] = []) -> Update {
        var update = Update()
        for name in invalidated {
            switch name {
            case "RSSI": rssi = nil
            case "TxPower": txPower = nil
            default: break
            }
        }
        for (name, value) in properties {
            switch (name, value.unwrapped) {
            case ("Address", .string(let text)): address = BluetoothAddress(text) ?? address
            case ("AddressType", .string(let text)): addressType = text == "random" ? .random : .public
            case ("RSSI", .int16(let value)): rssi = Int8(exactly: value)
            case ("TxPower", .int16(let value)): txPower = Int8(exactly: value)
            case ("ManufacturerData", .array(_, let entries)):
                manufacturerData = Self.fields(entries) { key in
                    if case .uint16(let id) = key { id } else { nil }
                }
                update.manufacturerData = true
            case ("ServiceData", .array(_, let entries)):
                serviceData = Self.fields(entries) { key in key.stringValue.flatMap(Self.shortUUID) }
                update.serviceData = true
            default: break
            }
        }
        update.advertData = update.manufacturerData || update.serviceData
        return update
    }

    private static func fields(_ entries: [BusValue], id: (BusValue) -> UInt16?) -> [Field] {
        entries.compactMap { entry in
            guard case .dictEntry(let key, let value) = entry, let id = id(key),
                case .array(_, let bytes) = value.unwrapped
            else { return nil }
            let data = bytes.compactMap { byte -> UInt8? in if case .byte(let b) = byte { b } else { nil } }
            return data.count == bytes.count ? Field(id: id, data: data) : nil
        }
    }

    /// The 16-bit UUID of a Bluetooth base UUID string, e.g. 0xFEAA for
    /// `0000feaa-0000-1000-8000-00805f9b34fb`; nil for any other UUID.
    public static func shortUUID(_ text: String) -> UInt16? {
        let lower = text.lowercased()
        guard lower.count == 36, lower.hasPrefix("0000"), lower.hasSuffix("-0000-1000-8000-00805f9b34fb") else { return nil }
        return UInt16(lower.dropFirst(4).prefix(4), radix: 16)
    }

    /// The AD structures of an advert: manufacturer data, then service data, then the Tx
    /// power level, each only when wanted. Structures that would not fit in `limit` bytes are
    /// left out whole.
    public func adData(manufacturer: Bool = true, service: Bool = true, limit: Int = 229) -> [UInt8] {
        var out: [UInt8] = []
        func add(_ type: UInt8, _ body: [UInt8]) {
            guard body.count <= 254, out.count + 2 + body.count <= limit else { return }
            out += [UInt8(body.count + 1), type] + body
        }
        if manufacturer {
            for field in manufacturerData {
                add(ADStructures.manufacturerSpecific, [UInt8(truncatingIfNeeded: field.id), UInt8(field.id >> 8)] + field.data)
            }
        }
        if service {
            for field in serviceData {
                add(ADStructures.serviceData16, [UInt8(truncatingIfNeeded: field.id), UInt8(field.id >> 8)] + field.data)
            }
        }
        if let txPower { add(ADStructures.txPowerLevel, [UInt8(bitPattern: txPower)]) }
        return out
    }

    /// The HCI event a controller would have sent for this advert (without the H4 type byte):
    /// an LE Advertising Report when the data fits legacy's 31 bytes, else an LE Extended
    /// Advertising Report. Nil without an address (nothing to report it as).
    public func advertisingReportEvent(manufacturer: Bool = true, service: Bool = true) -> [UInt8]? {
        guard let address else { return nil }
        let data = adData(manufacturer: manufacturer, service: service)
        let typeCode: UInt8 = addressType == .random ? 0x01 : 0x00
        let rssiCode = UInt8(bitPattern: rssi ?? 127)
        var parameters: [UInt8]
        if data.count <= LEAdvertisingReportEvent.maxDataLength {
            // One report: ADV_NONCONN_IND (3), as beacons advertise; BlueZ does not say.
            parameters = [LEAdvertisingReportEvent.subeventCode, 1, 0x03, typeCode] + address.littleEndianBytes
            parameters += [UInt8(data.count)] + data + [rssiCode]
        } else {
            // Event type 0: a non-connectable extended advert; 1M PHY, no SID, Tx power unknown.
            parameters = [LEExtendedAdvertisingReportEvent.subeventCode, 1, 0x00, 0x00, typeCode] + address.littleEndianBytes
            parameters += [0x01, 0x00, 0xFF, 127, rssiCode, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(data.count)] + data
        }
        return [HCIEvent.leMetaCode, UInt8(parameters.count)] + parameters
    }
}
