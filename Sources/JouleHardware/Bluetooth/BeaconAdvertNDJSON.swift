/// The fast writer for `joule beacons scan --json` lines. It produces byte for byte what
/// `BeaconAdvert.jsonObject` serializes to (tests check this over every fixture), without
/// building the object: the decode benchmark writes millions of these per second.
extension JSONLineBuffer {
    public func appendLine(_ advert: BeaconAdvert) {
        append("{\"timestamp\":")
        appendTimestamp(advert.timestampMicros)
        if advert.addressType == .anonymous {
            append(",\"address\":null")
        } else {
            append(",\"address\":\"")
            let out = tail(17)
            let value = advert.address.value
            var p = 0
            for i in (0..<6).reversed() {
                let byte = Int(truncatingIfNeeded: (value >> UInt64(8 * i)) & 0xFF)
                out[p] = Hex.upper[byte >> 4]
                out[p + 1] = Hex.upper[byte & 0xF]
                if i > 0 { out[p + 2] = UInt8(ascii: ":") }
                p += 3
            }
            commit(17)
            append(UInt8(ascii: "\""))
        }
        switch advert.addressType.jsonName {
        case "public": append(",\"addressType\":\"public\"")
        case "random": append(",\"addressType\":\"random\"")
        default: append(",\"addressType\":null")
        }
        append(",\"rssi\":")
        if let rssi = advert.rssi { append(Int(rssi)) } else { append("null") }
        switch advert.frame {
        case .iBeacon(let b):
            append(",\"kind\":\"ibeacon\",\"uuid\":\"")
            b.uuid.write(to: tail(36))
            commit(36)
            append("\",\"major\":")
            append(Int(b.major))
            append(",\"minor\":")
            append(Int(b.minor))
            append(",\"txPower\":")
            append(Int(b.txPower))
        case .altBeacon(let b):
            append(",\"kind\":\"altbeacon\",\"id\":\"")
            appendHex(b.id)
            append("\",\"manufacturer\":")
            append(Int(b.manufacturer))
            append(",\"txPower\":")
            append(Int(b.txPower))
        case .eddystoneUID(let b):
            append(",\"kind\":\"eddystone-uid\",\"namespace\":\"")
            appendHex(b.namespace)
            append("\",\"instance\":\"")
            appendHex(b.instance)
            append("\",\"txPower\":")
            append(Int(b.txPower))
        case .eddystoneURL(let b):
            append(",\"kind\":\"eddystone-url\",\"url\":")
            append(JSONValue.string(b.url))
            append(",\"txPower\":")
            append(Int(b.txPower))
        case .eddystoneTLM(let b):
            append(",\"kind\":\"eddystone-tlm\",\"batteryMv\":")
            append(JSONValue.from(b.batteryMv))
            append(",\"temperatureC\":")
            append(JSONValue.from(b.temperatureC))
            append(",\"advCount\":")
            append(Int(b.advCount))
            append(",\"uptimeS\":")
            append(JSONValue.from(b.uptimeS))
        }
        append("}\n")
    }

    private func appendHex(_ id: BeaconIdentifier) {
        id.write(to: tail(2 * id.count))
        commit(2 * id.count)
    }

    /// Unix seconds with up to six decimals and no trailing zeros: the shortest text that
    /// round-trips the Double, which is what the reference serializer prints.
    func appendTimestamp(_ micros: Int64?) {
        guard let micros else { return append("null") }
        // Below one second the reference prints exponents (1e-06); leave those rare values to it.
        guard micros >= 1_000_000 else { return append(JSONValue.from(Double(micros) / 1_000_000)) }
        append(Int(micros / 1_000_000))
        var fraction = Int(micros % 1_000_000)
        guard fraction != 0 else { return }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let out = tail(7)
        out[0] = UInt8(ascii: ".")
        for i in stride(from: digits, to: 0, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
        commit(digits + 1)
    }
}
