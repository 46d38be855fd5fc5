/// What was wrong with what came from an i3-ipc socket.
public enum I3IPCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream does not start a message with "i3-ipc" (the bytes found).
    case badMagic([UInt8])
    /// A header announces more than `I3IPCFrameReader.payloadLimit` bytes.
    case payloadTooLong(Int)
    /// The stream ended inside a message, this many bytes into it.
    case truncated(bytes: Int)
    /// A payload is not JSON.
    case badJSON(String)
    /// JSON, but not shaped like a reply or a tree.
    case unexpected(String)
    /// SUBSCRIBE answered without success.
    case refused(String)

    public var description: String {
        switch self {
        case .badMagic(let bytes):
            "not i3-ipc: a message starts with \(bytes.map { String($0, radix: 16) }.joined(separator: " ")) instead of \"i3-ipc\""
        case .payloadTooLong(let length):
            "a message announces \(length) bytes, over the \(I3IPCFrameReader.payloadLimit)-byte limit"
        case .truncated(let bytes): "the stream ended inside a message (\(bytes) bytes of it)"
        case .badJSON(let reason): "a payload is not JSON: \(reason)"
        case .unexpected(let reason): "unexpected reply: \(reason)"
        case .refused(let reply): "SUBSCRIBE refused: \(reply)"
        }
    }
}
