/// Reads a btsnoop capture record by record through a reusable buffer, so replaying a large
/// file costs no allocation per record. Bad headers throw; damage later ends the replay with
/// `warning` set, never a trap.
public final class BTSnoopReader {
    public let path: String
    @exclusivity(unchecked) public private(set) var datalink: BTSnoopDatalink
    /// Set when the replay ended early (truncated record, absurd length, read error).
    public private(set) var warning: BTSnoopWarning?
    /// Records returned so far.
    @exclusivity(unchecked) public private(set) var recordCount = 0

    static let headerLength = 16
    static let recordHeaderLength = 24
    /// Larger than any HCI packet (64 KiB ACL plus headers); a longer record means corruption.
    static let maxRecordLength = 1 << 20

    private var fd: Int32
    @exclusivity(unchecked) private var buffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    /// File offset of `buffer[start]`.
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var atEOF = false
    @exclusivity(unchecked) private var finished = false

    /// Opens a capture file and checks its header.
    public convenience init(path: String) throws(BTSnoopError) {
        let fd: Int32
        do throws(HardwareError) { fd = try Syscalls.openForReading(path) } catch { throw .io(error) }
        try self.init(fd: fd, bytes: nil, path: path)
    }

    /// Reads a capture held in memory (tests, fuzzing).
    public convenience init(bytes: [UInt8], name: String = "<memory>") throws(BTSnoopError) {
        try self.init(fd: -1, bytes: bytes, path: name)
    }

    private init(fd: Int32, bytes: [UInt8]?, path: String) throws(BTSnoopError) {
        self.fd = fd
        self.path = path
        // A file streams through 1 MiB; a capture in memory (tests, fuzzing) is copied once.
        let capacity = bytes.map { Swift.max($0.count, 64) } ?? (1 << 20)
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        datalink = .h4  // replaced below once the header is read
        if let bytes {
            bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            end = bytes.count
            atEOF = true
        }
        let header: UnsafeRawBufferPointer
        do throws(HardwareError) { header = try fill(Self.headerLength) } catch { cleanUp(); throw .io(error) }
        guard header.count == Self.headerLength else {
            cleanUp()
            throw .notBTSnoop(path: path, detail: "file is \(header.count) bytes, shorter than the 16-byte header")
        }
        guard Array(header[0..<8]) == Array("btsnoop\0".utf8) else {
            cleanUp()
            throw .notBTSnoop(path: path, detail: "bad magic (expected \"btsnoop\\0\")")
        }
        let version = Self.u32(header, 8)
        guard version == 1 else {
            cleanUp()
            throw .unsupportedVersion(path: path, version: version)
        }
        let code = Self.u32(header, 12)
        guard let datalink = BTSnoopDatalink(rawValue: code) else {
            cleanUp()
            throw .unsupportedDatalink(path: path, datalink: code)
        }
        self.datalink = datalink
        consume(Self.headerLength)
    }

    deinit { cleanUp() }

    private func cleanUp() {
        if fd >= 0 { Syscalls.close(fd) }
        fd = -1
        if buffer.count > 0 {
            buffer.deallocate()
            buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        }
    }

    /// The next record, or nil at the end of the capture (check `warning` for why it ended).
    /// The record borrows the reader's buffer until the next call.
    public func next() -> BTSnoopRecord? {
        while !finished {
            let header: UnsafeRawBufferPointer
            do { header = try fill(Self.recordHeaderLength) } catch { return stop("read failed: \(error)") }
            if header.isEmpty { finished = true; return nil }
            guard header.count == Self.recordHeaderLength else {
                return stop("truncated record header (\(header.count) of 24 bytes)")
            }
            let originalLength = Int(Self.u32(header, 0))
            let includedLength = Int(Self.u32(header, 4))
            let flags = Self.u32(header, 8)
            let rawTime = Int64(bitPattern: UInt64(Self.u32(header, 16)) << 32 | UInt64(Self.u32(header, 20)))
            guard includedLength <= Self.maxRecordLength else {
                return stop("record length \(includedLength) is not plausible")
            }
            let whole: UnsafeRawBufferPointer
            do { whole = try fill(Self.recordHeaderLength + includedLength) } catch {
                return stop("read failed: \(error)")
            }
            guard whole.count == Self.recordHeaderLength + includedLength else {
                return stop("truncated record (\(whole.count - Self.recordHeaderLength) of \(includedLength) bytes)")
            }
            let data = UnsafeRawBufferPointer(rebasing: whole[Self.recordHeaderLength...])
            let index = recordCount
            consume(whole.count)
            recordCount += 1
            guard let (type, received, payload) = classify(data, flags: flags) else { continue }
            return BTSnoopRecord(
                index: index, timestampMicros: BTSnoopRecord.unixMicros(fromBTSnoop: rawTime), flags: flags,
                originalLength: originalLength, type: type, received: received, payload: payload)
        }
        return nil
    }

    /// Packet type, direction and payload for this datalink; nil for an empty H4 record.
    private func classify(_ data: UnsafeRawBufferPointer, flags: UInt32)
        -> (HCIPacketType, Bool, UnsafeRawBufferPointer)?
    {
        switch datalink {
        case .hciUnencapsulated:
            let received = flags & 1 != 0
            let type: HCIPacketType = flags & 2 != 0 ? (received ? .event : .command) : .aclData
            return (type, received, data)
        case .h4:
            guard let first = data.first else { return nil }
            let type = HCIPacketType(rawValue: first) ?? .other
            // Android's snoop log sets bit 0 for controller-to-host; events always are.
            return (type, flags & 1 != 0 || type == .event, UnsafeRawBufferPointer(rebasing: data[1...]))
        case .linuxMonitor:
            let type: HCIPacketType
            var received = true
            switch flags & 0xFFFF {
            case 2: type = .command; received = false
            case 3: type = .event
            case 4: type = .aclData; received = false
            case 5: type = .aclData
            case 6: type = .scoData; received = false
            case 7: type = .scoData
            case 18: type = .isoData; received = false
            case 19: type = .isoData
            default: type = .other
            }
            return (type, received, data)
        }
    }

    private func stop(_ detail: String) -> BTSnoopRecord? {
        warning = BTSnoopWarning(path: path, record: recordCount, offset: position, detail: detail)
        finished = true
        return nil
    }

    private func consume(_ count: Int) {
        start += count
        position += count
    }

    /// Makes up to `count` bytes available at `start`, reading more of the file as needed;
    /// returns fewer only at the end of the file.
    private func fill(_ count: Int) throws(HardwareError) -> UnsafeRawBufferPointer {
        if end - start < count && !atEOF {
            if buffer.count < count {
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 2 * buffer.count), alignment: 8)
                bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
                buffer.deallocate()
                buffer = bigger
            } else if start > 0 {
                let live = end - start
                if live > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: live) }
            }
            end -= start
            start = 0
            while end < count && !atEOF {
                let n = try Syscalls.pread(
                    fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]), at: position + end, path: path)
                if n == 0 { atEOF = true } else { end += n }
            }
        }
        return UnsafeRawBufferPointer(rebasing: buffer[start..<(start + Swift.min(count, end - start))])
    }

    static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
