/// Writes a btsnoop capture with datalink 1002 (H4), as Android's snoop log does, so Joule's
/// recordings open in Wireshark and replay with `--replay`. Records are buffered and flushed
/// in blocks; `close()` flushes and syncs.
public final class BTSnoopWriter {
    public let path: String
    private var fd: Int32
    private var pending: [UInt8] = []
    public private(set) var recordCount = 0

    public init(path: String) throws(HardwareError) {
        self.path = path
        fd = try Syscalls.createFile(path)
        pending.reserveCapacity(1 << 16)
        pending += Array("btsnoop\0".utf8)
        Self.put32(1, into: &pending)
        Self.put32(BTSnoopDatalink.h4.rawValue, into: &pending)
    }

    deinit { if fd >= 0 { Syscalls.close(fd) } }

    /// Appends one packet; `payload` excludes the H4 type byte, which this adds.
    public func write(
        type: HCIPacketType, received: Bool, payload: UnsafeRawBufferPointer, timestampMicros: Int64
    ) throws(HardwareError) {
        let length = UInt32(truncatingIfNeeded: payload.count + 1)
        Self.put32(length, into: &pending)
        Self.put32(length, into: &pending)
        // Bit 0: controller to host; bit 1: command or event rather than data.
        let isCommandOrEvent = type == .command || type == .event
        Self.put32((received ? 1 : 0) | (isCommandOrEvent ? 2 : 0), into: &pending)
        Self.put32(0, into: &pending)
        let raw = UInt64(bitPattern: timestampMicros &+ BTSnoopRecord.unixEpochOffset)
        Self.put32(UInt32(truncatingIfNeeded: raw >> 32), into: &pending)
        Self.put32(UInt32(truncatingIfNeeded: raw), into: &pending)
        pending.append(type.rawValue)
        pending.append(contentsOf: payload)
        recordCount += 1
        if pending.count >= 1 << 16 { try flush() }
    }

    public func write(type: HCIPacketType, received: Bool, payload: [UInt8], timestampMicros: Int64) throws(HardwareError) {
        let result: Result<Void, HardwareError> = payload.withUnsafeBytes { raw in
            do throws(HardwareError) {
                try write(type: type, received: received, payload: raw, timestampMicros: timestampMicros)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Writes buffered records to the file.
    private func flush() throws(HardwareError) {
        guard !pending.isEmpty, fd >= 0 else { return }
        let result: Result<Void, HardwareError> = pending.withUnsafeBytes { raw in
            do throws(HardwareError) {
                try Syscalls.writeAll(fd, raw, path: path)
                return .success(())
            } catch { return .failure(error) }
        }
        pending.removeAll(keepingCapacity: true)
        try result.get()
    }

    /// Flushes, syncs and closes the file.
    public func close() throws(HardwareError) {
        guard fd >= 0 else { return }
        defer {
            Syscalls.close(fd)
            fd = -1
        }
        try flush()
        try Syscalls.sync(fd, path: path)
    }

    static func put32(_ value: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}
