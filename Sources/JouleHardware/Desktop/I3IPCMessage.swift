/// One message of sway's and i3's IPC (i3's "IPC interface" document, sway-ipc(7)): a reply
/// to a command, or an event (the type's high bit set).
public struct I3IPCMessage: Sendable, Hashable {
    public var type: UInt32
    public var payload: [UInt8]

    public init(type: UInt32, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }

    public static let subscribe: UInt32 = 2
    public static let getTree: UInt32 = 4
    public static let workspaceEvent: UInt32 = 0x8000_0000
    public static let windowEvent: UInt32 = 0x8000_0003

    public var isEvent: Bool { type & 0x8000_0000 != 0 }

    /// The framed bytes: "i3-ipc", the payload's length and the type (native byte order,
    /// which is little-endian on every machine Joule builds for), then the payload.
    public var encoded: [UInt8] {
        var bytes = I3IPCFrameReader.magic
        for value in [UInt32(payload.count), type] {
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return bytes + payload
    }
}
