/// Takes structured values off the fuzzer's bytes: numbers, short strings and choices. Past
/// the end every read gives zero or empty, so any input builds something.
struct FuzzBytes {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    /// Any double but NaN, which sqlite and JSON both turn into null before anyone reads it.
    mutating func double() -> Double {
        let value = Double(bitPattern: uint64())
        return value.isNaN ? .infinity : value
    }

    /// A string of up to 63 bytes (invalid UTF-8 repaired, as Swift reads it from C).
    mutating func string() -> String {
        let count = Int(byte() & 63)
        var text: [UInt8] = []
        for _ in 0..<count where !isAtEnd { text.append(byte()) }
        return String(decoding: text, as: UTF8.self)
    }

    /// One of `words` most of the time, else a free string: decoders see both the values they
    /// know and everything else.
    mutating func word(_ words: [String]) -> String {
        let pick = byte()
        return pick < 192 && !words.isEmpty ? words[Int(pick) % words.count] : string()
    }
}
