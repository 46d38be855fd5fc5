#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: TCP client sockets (gpsd's JSON protocol), and AF_UNIX ones (sway/i3 IPC)

/// A TCP connection to a host and port, non-blocking, for `GPSDConnection`'s thread.
extension Syscalls {
    /// SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC (asm-generic values): Glibc's `__socket_type`
    /// enum does not import in every module configuration of this package.
    private static let streamType: Int32 = 1
    private static let streamFlags: Int32 = 0o4000 | 0o2000000

    /// Connects to `host`:`port` (a name, an IPv4 or an IPv6 address: getaddrinfo(3), every
    /// address in turn) within `timeoutMillis` per address, and returns the non-blocking socket.
    /// `label` names the peer in errors (`localhost:2947`). Blocks: call it on a thread of its own.
    static func connectStream(host: String, port: UInt16, timeoutMillis: Int32, label: String) throws(HardwareError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == EAI_SYSTEM ? Errno.current.description : String(cString: gai_strerror(status))
            throw HardwareError(operation: "resolve", path: label, detail: reason)
        }
        defer { freeaddrinfo(first) }
        var failure = Errno(ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, streamType | streamFlags, info.pointee.ai_protocol)
            guard fd >= 0 else {
                failure = .current
                continue
            }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            var error = Errno.current
            if error.rawValue == EINPROGRESS {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var ready: Int32
                repeat { ready = poll(&entry, 1, timeoutMillis) } while ready < 0 && errno == EINTR
                if ready == 0 {
                    error = Errno(ETIMEDOUT)
                } else {
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                    if code == 0 { return fd }
                    error = Errno(code)
                }
            }
            _ = Glibc.close(fd)
            failure = error
        }
        throw HardwareError(operation: "connect", path: label, errno: failure)
    }

    /// Connects to the AF_UNIX stream socket at `path` (sway's and i3's IPC). Blocking mode
    /// and immediate (a local connect does not wait for the peer); `readStream` and
    /// `sendStream` never block on it anyway (MSG_DONTWAIT).
    static func connectUnixStream(path: String) throws(HardwareError) -> Int32 {
        try connectUnix(path, type: streamType | 0o2000000)
    }

    enum StreamRead {
        case bytes([UInt8])
        /// Nothing there now (EAGAIN).
        case none
        /// The peer closed the connection (end of file).
        case closed
        case failed(Errno)
    }

    /// What is readable now, at most `limit` bytes, without blocking.
    static func readStream(_ fd: Int32, limit: Int) -> StreamRead {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { return .bytes(Array(buffer[..<n])) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .none
            default: return .failed(.current)
            }
        }
    }

    /// Sends all of `bytes` (a command of a few dozen bytes: the socket buffer takes it at
    /// once; a full one is waited for up to 1 s). nil when sent, else why not.
    static func sendStream(_ fd: Int32, _ bytes: [UInt8]) -> Errno? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                offset += n
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN:
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&entry, 1, 1000) == 0 { return Errno(ETIMEDOUT) }
            default: return .current
            }
        }
        return nil
    }

    /// close(2) of a connection's socket.
    static func closeStream(_ fd: Int32) { _ = Glibc.close(fd) }
}
