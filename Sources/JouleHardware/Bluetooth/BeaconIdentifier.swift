/// An opaque beacon identifier of up to 24 bytes (AltBeacon's 20-byte id, Eddystone's 10-byte
/// namespace and 6-byte instance), kept inline and printed as lowercase hex.
public struct BeaconIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// Bytes packed big-endian into three words; unused low bytes are zero.
    var words: (UInt64, UInt64, UInt64)
    public let count: Int

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1
            && lhs.words.2 == rhs.words.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
    }

    /// Copies up to 24 bytes.
    public init(_ bytes: UnsafeRawBufferPointer) {
        var w: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let n = Swift.min(bytes.count, 24)
        for i in 0..<n {
            let shift = UInt64(56 - 8 * (i % 8))
            let b = UInt64(bytes[i]) << shift
            switch i / 8 {
            case 0: w.0 |= b
            case 1: w.1 |= b
            default: w.2 |= b
            }
        }
        words = w
        count = n
    }

    public init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { BeaconIdentifier($0) }
    }

    /// Parses `count` bytes written as hex digits in either case, with an optional `0x`
    /// (the AltBeacon library's form); nil for anything else.
    public init?(hex text: String, count: Int) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let utf8 = Array(digits.utf8)
        guard count <= 24, utf8.count == 2 * count else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for i in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = Hex.value(of: utf8[i]), let low = Hex.value(of: utf8[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes)
    }

    public func byte(at index: Int) -> UInt8 {
        let word = index < 8 ? words.0 : index < 16 ? words.1 : words.2
        return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index % 8)))
    }

    public var bytes: [UInt8] { (0..<count).map(byte(at:)) }

    /// Writes `2 * count` lowercase hex digits at `out`.
    func write(to out: UnsafeMutablePointer<UInt8>) {
        // Four bytes (eight digits) at a time; a last partial group is its high-order bytes.
        var i = 0
        while i < count {
            let word = i < 8 ? words.0 : i < 16 ? words.1 : words.2
            let chunk = UInt32(truncatingIfNeeded: word &>> (i % 8 == 0 ? 32 : 0))
            Hex.write(chunk, upper: false, to: out + 2 &* i, digits: 2 &* Swift.min(4, count &- i))
            i &+= 4
        }
    }

    public var description: String {
        String(unsafeUninitializedCapacity: 2 * count) { buffer in
            if let base = buffer.baseAddress { write(to: base) }
            return 2 * count
        }
    }
}
