/// A bounds-checked reader over borrowed bytes. Every read checks the remaining length first
/// and throws instead of trapping, so decoders can never read past what a radio or a file sent.
public struct ByteCursor {
    public let bytes: UnsafeRawBufferPointer
    public private(set) var offset: Int

    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public var remaining: Int { bytes.count - offset }

    @inline(__always) func require(_ count: Int, _ field: String) throws(DecodeError) {
        guard count <= bytes.count - offset else {
            throw .truncated(field: field, offset: offset, needed: count, available: bytes.count - offset)
        }
    }

    @inline(__always) public mutating func u8(_ field: String) throws(DecodeError) -> UInt8 {
        try require(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always) public mutating func i8(_ field: String) throws(DecodeError) -> Int8 {
        Int8(bitPattern: try u8(field))
    }

    @inline(__always) public mutating func u16le(_ field: String) throws(DecodeError) -> UInt16 {
        try require(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inline(__always) public mutating func u16be(_ field: String) throws(DecodeError) -> UInt16 {
        try require(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inline(__always) public mutating func u32be(_ field: String) throws(DecodeError) -> UInt32 {
        try require(4, field)
        defer { offset += 4 }
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[offset + i]) }
        return value
    }

    /// The next `count` bytes, borrowed; `count` comes from input, so it is checked like any read.
    @inline(__always) public mutating func take(_ count: Int, _ field: String) throws(DecodeError) -> UnsafeRawBufferPointer {
        guard count >= 0 else { throw .invalid(field: field, offset: offset, value: count) }
        try require(count, field)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }
}

/// Runs a typed-throwing decoder over an array's bytes (`withUnsafeBytes` only rethrows
/// untyped errors).
func decoding<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(DecodeError) -> T) throws(DecodeError) -> T {
    let result: Result<T, DecodeError> = bytes.withUnsafeBytes { raw in
        do throws(DecodeError) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}
