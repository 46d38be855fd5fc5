import JouleWire

/// A decoded beacon advert: who sent it, how strong, when, and the beacon frame.
public struct BeaconAdvert: Sendable, Hashable {
    /// Unix time in microseconds; nil when the capture's timestamp was out of range.
    public var timestampMicros: Int64?
    public var address: BluetoothAddress
    public var addressType: AddressType
    public var rssi: Int8?
    public var frame: BeaconFrame

    public init(
        timestampMicros: Int64?, address: BluetoothAddress, addressType: AddressType, rssi: Int8?,
        frame: BeaconFrame
    ) {
        self.timestampMicros = timestampMicros
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.frame = frame
    }

    public init(report: AdvertisingReport, frame: BeaconFrame, timestampMicros: Int64?) {
        self.init(
            timestampMicros: timestampMicros, address: report.address, addressType: report.addressType,
            rssi: report.rssi, frame: frame)
    }

    /// Unix seconds as a Double, or nil.
    public var timestamp: Double? { timestampMicros.map { Double($0) / 1_000_000 } }

    /// The `joule beacons scan --json` line, keys in the contract's order. This is the
    /// reference the fast `JSONLineBuffer.append(_:)` writer is tested against.
    public var jsonObject: JSONObject {
        var object: JSONObject = [
            "timestamp": .from(timestamp),
            "address": addressType == .anonymous ? .null : .string(address.description),
            "addressType": .from(addressType.jsonName),
            "rssi": .from(rssi.map(Int.init)),
            "kind": .string(frame.kind),
        ]
        switch frame {
        case .iBeacon(let b):
            object["uuid"] = .string(b.uuid.description)
            object["major"] = .int(Int(b.major))
            object["minor"] = .int(Int(b.minor))
            object["txPower"] = .int(Int(b.txPower))
        case .altBeacon(let b):
            object["id"] = .string(b.id.description)
            object["manufacturer"] = .int(Int(b.manufacturer))
            object["txPower"] = .int(Int(b.txPower))
        case .eddystoneUID(let b):
            object["namespace"] = .string(b.namespace.description)
            object["instance"] = .string(b.instance.description)
            object["txPower"] = .int(Int(b.txPower))
        case .eddystoneURL(let b):
            object["url"] = .string(b.url)
            object["txPower"] = .int(Int(b.txPower))
        case .eddystoneTLM(let b):
            object["batteryMv"] = .from(b.batteryMv)
            object["temperatureC"] = .from(b.temperatureC)
            object["advCount"] = .int(Int(b.advCount))
            object["uptimeS"] = .from(b.uptimeS)
        }
        return object
    }

    /// Every beacon advert in one HCI event packet, in report order; `body` is called once per
    /// report that carries a beacon frame. Returns the decode problem met, if any.
    @discardableResult
    public static func forEach(
        inEvent event: UnsafeRawBufferPointer, timestampMicros: Int64?, _ body: (BeaconAdvert) -> Void
    ) -> DecodeError? {
        HCIEvent.forEachAdvertisingReport(event: event) { report, data in
            if let frame = BeaconFrame.decode(adData: data) {
                body(BeaconAdvert(report: report, frame: frame, timestampMicros: timestampMicros))
            }
        }
    }
}
