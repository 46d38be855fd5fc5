#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims

// MARK: AF_UNIX SOCK_SEQPACKET

/// The lifecycle and control sockets: one message per packet, boundaries kept by the kernel.
extension Syscalls {
    /// SOCK_SEQPACKET | SOCK_CLOEXEC (asm-generic values, as on x86 and arm): Glibc's
    /// `__socket_type` enum does not import in every module configuration of this package.
    private static let seqPacketType: Int32 = 5 | 0o2000000

    /// A sockaddr_un for `path`; throws when the path does not fit sun_path.
    static func unixAddress(_ path: String) throws(HardwareError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw HardwareError(operation: "bind", path: path, detail: "a socket path must be 1 to \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// A listening socket at `path` (a stale socket file there is replaced), with `mode`.
    /// It is bound, chmod-ed and listening under a temporary name first, then renamed into
    /// place: a client that sees the file can connect at once, never "Connection refused"
    /// between bind(2) and listen(2). A non-socket file at `path` is never replaced.
    static func listenSeqPacket(_ path: String, mode: UInt32) throws(HardwareError) -> Int32 {
        var existing = stat()
        if lstat(path, &existing) == 0, existing.st_mode & S_IFMT != S_IFSOCK {
            throw HardwareError(operation: "bind", path: path, detail: "a file that is not a socket is in the way")
        }
        _ = try unixAddress(path)
        let temporary = "\(path).\(getpid())"
        var address = try unixAddress(temporary)
        let fd = socket(AF_UNIX, seqPacketType, 0)
        guard fd >= 0 else { throw HardwareError(operation: "socket", path: path, errno: .current) }
        unlinkIfSocket(temporary)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let failure = Errno.current
            _ = Glibc.close(fd)
            throw HardwareError(operation: "bind", path: temporary, errno: failure)
        }
        guard chmod(temporary, mode_t(mode)) == 0, listen(fd, 16) == 0, Glibc.rename(temporary, path) == 0 else {
            let failure = Errno.current
            _ = Glibc.close(fd)
            _ = unlink(temporary)
            throw HardwareError(operation: "listen", path: path, errno: failure)
        }
        return fd
    }

    /// Connects to the socket at `path`.
    static func connectSeqPacket(_ path: String) throws(HardwareError) -> Int32 { try connectUnix(path, type: seqPacketType) }

    /// Connects an AF_UNIX socket of `type` to `path`; the descriptor is closed on failure.
    static func connectUnix(_ path: String, type: Int32) throws(HardwareError) -> Int32 {
        var address = try unixAddress(path)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw HardwareError(operation: "socket", path: path, errno: .current) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let failure = Errno.current
            _ = Glibc.close(fd)
            throw HardwareError(operation: "connect", path: path, errno: failure)
        }
        return fd
    }

    enum Accepted {
        case connection(Int32)
        /// Nothing pending (EAGAIN), or a client that left before it was taken.
        case none
        case failed(Errno)
    }

    /// accept4(2), close-on-exec and non-blocking.
    static func acceptConnection(_ fd: Int32) -> Accepted {
        let accepted = joule_accept_nonblocking(fd)
        if accepted >= 0 { return .connection(accepted) }
        let failure = Errno.current
        switch failure.rawValue {
        case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: return .none
        default: return .failed(failure)
        }
    }

    /// A descriptor held in reserve (/dev/null) so that, out of descriptors, a pending client
    /// can still be accepted and closed: otherwise it stays queued, the listener stays
    /// readable, and poll(2) spins.
    static func openSpareDescriptor() -> Int32 { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// SO_PEERCRED: the peer's PID and UID at connect time.
    static func peerCredentials(_ fd: Int32) -> (pid: Int32, uid: UInt32)? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        guard joule_peer_credentials(fd, &pid, &uid) == 0 else { return nil }
        return (pid, uid)
    }

    /// One packet, read with a buffer of `limit + 1` and MSG_TRUNC so a longer packet is seen
    /// as longer (and dropped) rather than cut. `.closed` on EOF or an error; `.none` when
    /// nothing is there (EAGAIN).
    enum PacketRead {
        case packet([UInt8], length: Int)
        case none
        case closed
    }

    static func receivePacket(_ fd: Int32, limit: Int) -> PacketRead {
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT)) }
            if n > 0 {
                let kept = min(n, limit + 1)
                return .packet(Array(buffer[..<kept]), length: n)
            }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .none
            default: return .closed
            }
        }
    }

    /// Sends one packet without blocking; false when it could not be sent now (the peer is
    /// gone, or its queue is full because it is frozen and not reading).
    static func sendPacket(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Wakes a thread in poll(2) on `fd` with POLLHUP, without closing it under that thread.
    static func shutdownSocket(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// poll(2) for input on `fds`; returns the indices that are readable or hung up. `timeout`
    /// in milliseconds, -1 for none.
    static func pollReadable(_ fds: [Int32], timeout: Int32) -> [Int] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let n = poll(&entries, nfds_t(entries.count), timeout)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return [] }
            return entries.indices.filter { entries[$0].revents != 0 }
        }
    }

    static func changeOwner(_ path: String, uid: UInt32, gid: UInt32) throws(HardwareError) {
        guard chown(path, uid, gid) == 0 else { throw HardwareError(operation: "chown", path: path, errno: .current) }
    }

    /// Removes `path` when it is a socket (lstat: never through a symlink).
    static func unlinkIfSocket(_ path: String) {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { _ = unlink(path) }
    }
}
