import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Sends a uevent to every libudev monitor running under umockdev's preload in `testbed`,
/// the way umockdev's own testbed does: umockdev turns each monitor's netlink socket into a
/// Unix datagram socket at `$UMOCKDEV_DIR/event<fd>`, and libudev accepts a message there in
/// its own wire format (a "libudev" header, then NUL-separated properties). Lets a test change
/// a fixture attribute and announce it without the umockdev library or Python bindings.
enum UmockdevUevent {
    /// - Parameters:
    ///   - devpath: the device path below /sys, e.g. `/devices/.../power_supply/BAT0`.
    /// - Returns: how many monitors the event reached.
    @discardableResult
    static func send(testbed: String, action: String, devpath: String, subsystem: String, seqnum: UInt64 = 1) throws -> Int {
        var properties = Data()
        for property in ["ACTION=\(action)", "DEVPATH=\(devpath)", "SUBSYSTEM=\(subsystem)", "SEQNUM=\(seqnum)"] {
            properties.append(contentsOf: Array(property.utf8) + [0])
        }
        var header = Data("libudev".utf8 + [0])
        func appendBigEndian(_ value: UInt32) { header.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
        func appendNative(_ value: UInt32) { header.append(contentsOf: withUnsafeBytes(of: value, Array.init)) }
        appendBigEndian(0xfeed_cafe)  // magic, network order
        appendNative(40)  // header_size
        appendNative(40)  // properties_off
        appendNative(UInt32(properties.count))  // properties_len
        appendBigEndian(murmurHash2(subsystem))  // filter_subsystem_hash, network order
        appendBigEndian(0)  // filter_devtype_hash: no devtype
        appendNative(0)  // filter_tag_bloom_hi
        appendNative(0)  // filter_tag_bloom_lo
        let message = header + properties

        let sockets = try FileManager.default.contentsOfDirectory(atPath: testbed)
            .filter { $0.hasPrefix("event") && Int($0.dropFirst(5)) != nil }
        var delivered = 0
        for name in sockets where sendDatagram(message, to: testbed + "/" + name) {
            delivered += 1
        }
        return delivered
    }

    private static func sendDatagram(_ message: Data, to path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        return sent == message.count
    }

    /// MurmurHash2 as systemd's libudev uses it for its in-kernel subsystem filter.
    static func murmurHash2(_ string: String) -> UInt32 {
        let data = Array(string.utf8)
        let m: UInt32 = 0x5bd1_e995
        var h = UInt32(truncatingIfNeeded: data.count)
        var index = 0
        while data.count - index >= 4 {
            var k = UInt32(data[index]) | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2]) << 16 | UInt32(data[index + 3]) << 24
            k = k &* m
            k ^= k >> 24
            k = k &* m
            h = h &* m
            h ^= k
            index += 4
        }
        let rest = data.count - index
        if rest == 3 { h ^= UInt32(data[index + 2]) << 16 }
        if rest >= 2 { h ^= UInt32(data[index + 1]) << 8 }
        if rest >= 1 {
            h ^= UInt32(data[index])
            h = h &* m
        }
        h ^= h >> 13
        h = h &* m
        h ^= h >> 15
        return h
    }
}
