import JouleWire

/// The fast writer for `joule beacons scan --json` lines. It produces byte for byte what
/// `BeaconAdvert.jsonObject` serializes to (tests check this over every fixture and over
/// every TLM temperature), without building the object: the decode benchmark writes millions
/// of these per second. Each line reserves its worst case once, then writes through a raw
/// cursor, so there is no per-field bounds, exclusivity or allocation work.
extension JSONLineBuffer {
    public func appendLine(_ advert: BeaconAdvert) {
        var urlBytes = 0
        if case .eddystoneURL(let b) = advert.frame { urlBytes = b.url.utf8.count }
        let start = tail(512 + 6 * urlBytes)
        var w = LineCursor(start)
        w.write("{\"timestamp\":")
        writeTimestamp(advert.timestampMicros, at: &w)
        switch advert.addressType {
        case .anonymous:
            w.write(",\"address\":null,\"addressType\":null")
        default:
            w.write(",\"address\":\"")
            w.address(advert.address)
            switch advert.addressType {
            case .public, .publicIdentity: w.write("\",\"addressType\":\"public\"")
            case .random, .randomIdentity: w.write("\",\"addressType\":\"random\"")
            default: w.write("\",\"addressType\":null")
            }
        }
        w.write(",\"rssi\":")
        if let rssi = advert.rssi { w.int(Int(rssi)) } else { w.write("null") }
        switch advert.frame {
        case .iBeacon(let b):
            w.write(",\"kind\":\"ibeacon\",\"uuid\":\"")
            b.uuid.write(to: w.p)
            w.p += 36
            w.write("\",\"major\":")
            w.int(Int(b.major))
            w.write(",\"minor\":")
            w.int(Int(b.minor))
            w.write(",\"txPower\":")
            w.int(Int(b.txPower))
        case .altBeacon(let b):
            w.write(",\"kind\":\"altbeacon\",\"id\":\"")
            w.hex(b.id)
            w.write("\",\"manufacturer\":")
            w.int(Int(b.manufacturer))
            w.write(",\"txPower\":")
            w.int(Int(b.txPower))
        case .eddystoneUID(let b):
            w.write(",\"kind\":\"eddystone-uid\",\"namespace\":\"")
            w.hex(b.namespace)
            w.write("\",\"instance\":\"")
            w.hex(b.instance)
            w.write("\",\"txPower\":")
            w.int(Int(b.txPower))
        case .eddystoneURL(let b):
            w.write(",\"kind\":\"eddystone-url\",\"url\":")
            w.string(b.url)
            w.write(",\"txPower\":")
            w.int(Int(b.txPower))
        case .eddystoneTLM(let b):
            w.write(",\"kind\":\"eddystone-tlm\",\"batteryMv\":")
            if let mv = b.batteryMv { w.int(mv) } else { w.write("null") }
            w.write(",\"temperatureC\":")
            if let raw = b.temperatureRaw { w.fixed(Int(raw), denominatorLog2: 8) } else { w.write("null") }
            w.write(",\"advCount\":")
            w.int(Int(b.advCount))
            w.write(",\"uptimeS\":")
            w.tenths(Int(b.uptimeTenths))
        }
        w.write("}\n")
        commit(w.p - start)
    }

    /// Unix seconds as the reference serializer prints them (for tests and other writers).
    func appendTimestamp(_ micros: Int64?) {
        let start = tail(64)
        var w = LineCursor(start)
        writeTimestamp(micros, at: &w)
        commit(w.p - start)
    }
}

/// A raw write position inside space the caller has reserved.
struct LineCursor {
    var p: UnsafeMutablePointer<UInt8>

    init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

    @inline(__always) mutating func byte(_ b: UInt8) {
        p.pointee = b
        p += 1
    }

    @inline(__always) mutating func write(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        p.update(from: text.utf8Start, count: n)
        p += n
    }

    /// Text of bounded length (a serialized number). Not named `write`: string literals
    /// would pick this overload over the StaticString one.
    mutating func writeText(_ text: String) {
        for b in text.utf8 { byte(b) }
    }

    @inline(__always) static func hexDigit(_ v: UInt8, upper: Bool) -> UInt8 {
        // Branch-free: 0x30 + v, plus 7 (or 39) past '9'.
        let above9 = UInt8(truncatingIfNeeded: (Int(v) &- 10) &>> 8) ^ 0xFF
        return 0x30 &+ v &+ (above9 & (upper ? 7 : 39))
    }

    /// "00" to "99": numbers are written two digits per division.
    @inline(__always) static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// The two digits of `value` (< 100) at `q`.
    @inline(__always) static func pair(_ value: UInt, to q: UnsafeMutablePointer<UInt8>) {
        let source = UnsafeRawPointer(digitPairs.utf8Start) + 2 &* Int(value)
        UnsafeMutableRawPointer(q).copyMemory(from: source, byteCount: 2)
    }

    mutating func int(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var m = value.magnitude
        // Most fields (RSSI, power, small ids) are one or two digits.
        if m < 10 {
            byte(0x30 &+ UInt8(truncatingIfNeeded: m))
            return
        }
        if m < 100 {
            Self.pair(m, to: p)
            p += 2
            return
        }
        var digits = 3
        var bound: UInt = 1000
        while m >= bound {
            digits &+= 1
            if digits == 20 { break }
            bound &*= 10
        }
        var q = p + digits
        while m >= 100 {
            q -= 2
            Self.pair(m % 100, to: q)
            m /= 100
        }
        if m >= 10 {
            Self.pair(m, to: q - 2)
        } else {
            (q - 1).pointee = 0x30 &+ UInt8(truncatingIfNeeded: m)
        }
        p += digits
    }

    mutating func address(_ address: BluetoothAddress) {
        let value = address.value
        var shift: UInt64 = 40
        while true {
            let b = UInt8(truncatingIfNeeded: value >> shift)
            p[0] = Self.hexDigit(b >> 4, upper: true)
            p[1] = Self.hexDigit(b & 0xF, upper: true)
            if shift == 0 {
                p += 2
                return
            }
            p[2] = UInt8(ascii: ":")
            p += 3
            shift -= 8
        }
    }

    mutating func hex(_ id: BeaconIdentifier) {
        id.write(to: p)
        p += 2 * id.count
    }

    /// A JSON string. Eddystone URLs are printable ASCII, escaped here; anything else goes
    /// through the reference serializer.
    mutating func string(_ s: String) {
        var text = s
        let start = p
        let ascii = text.withUTF8 { utf8 -> Bool in
            byte(UInt8(ascii: "\""))
            for b in utf8 {
                guard b >= 0x20 && b <= 0x7E else { return false }
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { byte(UInt8(ascii: "\\")) }
                byte(b)
            }
            byte(UInt8(ascii: "\""))
            return true
        }
        guard !ascii else { return }
        p = start
        var out = ""
        JSONValue.writeString(s, to: &out)
        writeText(out)
    }

    /// `numerator / 2^denominatorLog2` exactly, as the shortest round-trip text (which for
    /// these binary fractions is the exact decimal, trailing zeros and ".0" dropped).
    mutating func fixed(_ numerator: Int, denominatorLog2: Int) {
        if numerator < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = Int(numerator.magnitude)
        let denominator = 1 << denominatorLog2
        int(magnitude / denominator)
        var fraction = magnitude % denominator
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "."))
        while fraction != 0 {
            fraction *= 10
            byte(0x30 + UInt8(truncatingIfNeeded: fraction / denominator))
            fraction %= denominator
        }
    }

    /// `tenths / 10` as text.
    mutating func tenths(_ tenths: Int) {
        int(tenths / 10)
        if tenths % 10 != 0 {
            byte(UInt8(ascii: "."))
            byte(0x30 + UInt8(truncatingIfNeeded: tenths % 10))
        }
    }

    /// Unix seconds with up to six decimals and no trailing zeros: the shortest text that
    /// round-trips the Double, which is what the reference serializer prints.
    mutating func timestamp(_ micros: Int64?) {
        guard let micros else { return write("null") }
        // Below one second the reference prints exponents (1e-06); leave those rare values to it.
        guard micros >= 1_000_000 else { return writeText(JSONValue.from(Double(micros) / 1_000_000).serialized) }
        int(Int(micros / 1_000_000))
        fraction(Int(micros % 1_000_000))
    }

    /// Microseconds after the whole seconds: ".25" for 250000, nothing for 0.
    mutating func fraction(_ micros: Int) {
        guard micros > 0 else { return }
        let f = UInt(micros)
        p.pointee = UInt8(ascii: ".")
        Self.pair(f / 10000, to: p + 1)
        Self.pair(f / 100 % 100, to: p + 3)
        Self.pair(f % 100, to: p + 5)
        var digits = 6
        while p[digits] == UInt8(ascii: "0") { digits &-= 1 }
        p += digits + 1
    }
}
