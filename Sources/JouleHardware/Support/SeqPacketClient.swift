/// One connection to a SOCK_SEQPACKET socket, for `joule app` talking to a `joule run`:
/// send a packet, read packets with a timeout. Not shared between tasks.
public final class SeqPacketClient {
    public let path: String
    private var fd: Int32

    public init(path: String) throws(HardwareError) {
        self.path = path
        fd = try Syscalls.connectSeqPacket(path)
    }

    public func send(_ bytes: [UInt8]) throws(HardwareError) {
        guard fd >= 0, Syscalls.sendPacket(fd, bytes) else {
            throw HardwareError(operation: "send", path: path, errno: .current)
        }
    }

    /// The next packet, at most `limit` bytes; nil when the peer closed the connection or
    /// nothing came within `timeout` (nil: wait for ever). Throws on an oversized packet.
    public func receive(limit: Int, timeout: Duration?) throws(HardwareError) -> [UInt8]? {
        guard fd >= 0 else { return nil }
        let milliseconds = timeout.map { Int32(clamping: Int(($0.inSeconds * 1000).rounded(.up))) } ?? -1
        while true {
            guard !Syscalls.pollReadable([fd], timeout: milliseconds).isEmpty else { return nil }
            switch Syscalls.receivePacket(fd, limit: limit) {
            case .packet(let bytes, let length):
                guard length <= limit else {
                    throw HardwareError(operation: "recv", path: path, detail: "a \(length)-byte packet (the limit is \(limit))")
                }
                return bytes
            case .none: continue
            case .closed: return nil
            }
        }
    }

    public func close() {
        if fd >= 0 { Syscalls.close(fd) }
        fd = -1
    }

    deinit { close() }
}
