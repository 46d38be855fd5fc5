/// A decoded beacon payload, found in an advert's AD structures.
public enum BeaconFrame: Sendable, Hashable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystoneUID(EddystoneUID)
    case eddystoneURL(EddystoneURL)
    case eddystoneTLM(EddystoneTLM)

    /// The contract's `kind` value.
    public var kind: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystoneUID: "eddystone-uid"
        case .eddystoneURL: "eddystone-url"
        case .eddystoneTLM: "eddystone-tlm"
        }
    }

    /// The Eddystone service UUID, 0xFEAA, little-endian at the start of the service data.
    static let eddystoneService: UInt16 = 0xFEAA

    /// The first beacon frame in an advert's AD data, or nil when there is none. Structures
    /// that look like a beacon but do not decode are skipped; a bad AD length ends the search.
    public static func decode(adData: UnsafeRawBufferPointer) -> BeaconFrame? {
        // The same walk as `ADStructures.forEach`, inlined: this runs once per advert.
        var offset = 0
        while offset < adData.count {
            let length = Int(adData[offset])
            guard length != 0, length <= adData.count - offset - 1 else { return nil }
            let type = adData[offset + 1]
            if type == ADStructures.manufacturerSpecific || type == ADStructures.serviceData16,
                let frame = decode(type: type, data: UnsafeRawBufferPointer(rebasing: adData[(offset + 2)..<(offset + 1 + length)]))
            {
                return frame
            }
            offset += 1 + length
        }
        return nil
    }

    public static func decode(adData bytes: [UInt8]) -> BeaconFrame? {
        bytes.withUnsafeBytes { decode(adData: $0) }
    }

    /// One AD structure as a beacon frame, or nil.
    static func decode(type: UInt8, data: UnsafeRawBufferPointer) -> BeaconFrame? {
        switch type {
        case ADStructures.manufacturerSpecific:
            guard data.count >= 4 else { return nil }
            if data[0] == 0x4C && data[1] == 0x00 && data[2] == 0x02 {
                return (try? IBeacon(manufacturerData: data)).map(BeaconFrame.iBeacon)
            }
            if data[2] == 0xBE && data[3] == 0xAC {
                return (try? AltBeacon(manufacturerData: data)).map(BeaconFrame.altBeacon)
            }
            return nil
        case ADStructures.serviceData16:
            guard data.count >= 3, UInt16(data[0]) | UInt16(data[1]) << 8 == eddystoneService else { return nil }
            let frame = UnsafeRawBufferPointer(rebasing: data[2...])
            switch frame[0] {
            case 0x00: return (try? EddystoneUID(frame: frame)).map(BeaconFrame.eddystoneUID)
            case 0x10: return (try? EddystoneURL(frame: frame)).map(BeaconFrame.eddystoneURL)
            case 0x20: return (try? EddystoneTLM(frame: frame)).map(BeaconFrame.eddystoneTLM)
            default: return nil
            }
        default:
            return nil
        }
    }
}
