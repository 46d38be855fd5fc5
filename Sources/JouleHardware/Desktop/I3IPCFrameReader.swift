/// Cuts a byte stream from an i3-ipc socket into messages. Pure: bytes in, messages or a typed
/// error out, never a trap, whatever the peer sends.
public struct I3IPCFrameReader: Sendable {
    public static let magic = Array("i3-ipc".utf8)
    public static let headerSize = 14
    /// sway's tree with a few hundred windows is well under 1 MiB: a larger length is not a
    /// compositor talking, and is refused before anything is buffered for it.
    public static let payloadLimit = 32 << 20

    private var buffer: [UInt8] = []

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    /// The next complete message, nil until more bytes come.
    public mutating func next() throws(I3IPCError) -> I3IPCMessage? {
        let prefix = min(buffer.count, Self.magic.count)
        guard buffer[..<prefix].elementsEqual(Self.magic[..<prefix]) else {
            throw .badMagic(Array(buffer.prefix(Self.magic.count)))
        }
        guard buffer.count >= Self.headerSize else { return nil }
        let length = Int(Self.word(buffer, at: 6))
        guard length <= Self.payloadLimit else { throw .payloadTooLong(length) }
        guard buffer.count >= Self.headerSize + length else { return nil }
        let message = I3IPCMessage(
            type: Self.word(buffer, at: 10), payload: Array(buffer[Self.headerSize..<Self.headerSize + length]))
        buffer.removeFirst(Self.headerSize + length)
        return message
    }

    /// At the end of the stream: throws when part of a message is left.
    public func finish() throws(I3IPCError) {
        if !buffer.isEmpty { throw .truncated(bytes: buffer.count) }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}
