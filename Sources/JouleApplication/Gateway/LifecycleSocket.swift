import Glibc
import JouleWire

/// The module's only C-calling file: one SOCK_SEQPACKET connection to joule and its reader
/// thread. The reader blocks in poll(2) on the socket and a stop pipe, and is the only one that
/// closes the descriptors (under `descriptors`' lock, after marking them closed), so a send
/// racing `close()` can never write to a reused descriptor number.
final class LifecycleSocket: Sendable {
    /// What the reader hands over: a packet, or the size of one that was too large.
    enum Received: Sendable {
        case packet([UInt8])
        case oversized(bytes: Int)
    }

    private struct Descriptors {
        /// False once `close()` ran or the reader ended; sends then fail with `.closed`.
        var open = true
        /// True once the reader closed the descriptors; nothing may touch them after.
        var released = false
    }

    private let fd: Int32
    private let stopRead: Int32
    private let stopWrite: Int32
    private let descriptors = Locked(Descriptors())

    /// `JOULE_LIFECYCLE_SOCKET`, or nil when unset or empty (not run under `joule run`).
    static func environmentPath() -> String? {
        guard let value = getenv("JOULE_LIFECYCLE_SOCKET") else { return nil }
        let path = String(cString: value)
        return path.isEmpty ? nil : path
    }

    static func describe(errno e: Int32) -> String { String(cString: strerror(e)) }

    init(connectingTo path: String) throws(JouleApplicationError) {
        func failure(_ e: Int32) -> JouleApplicationError {
            .connectFailed(path: path, errno: e, reason: Self.describe(errno: e))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        // sun_path needs room for the terminating NUL.
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw failure(ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        // CLOEXEC: a child the app spawns must not inherit the connection and keep its tasks open.
        let s = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw failure(errno) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let e = errno
            _ = Glibc.close(s)
            throw failure(e)
        }
        var pipeEnds: [Int32] = [-1, -1]
        // pipe2 is not imported (it needs _GNU_SOURCE); the race without it only matters to a
        // thread that forks in the few instructions between pipe and fcntl.
        guard pipe(&pipeEnds) == 0 else {
            let e = errno
            _ = Glibc.close(s)
            throw failure(e)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        fd = s
        stopRead = pipeEnds[0]
        stopWrite = pipeEnds[1]
    }

    /// Starts the one reader thread. `onPacket` is called on it for every packet in order;
    /// `onEnd` once, after the descriptors are closed (joule closed the socket, or `close()`).
    func startReading(
        onPacket: @escaping @Sendable (Received) -> Void,
        onEnd: @escaping @Sendable () -> Void
    ) throws(JouleApplicationError) {
        let body = ThreadBody { [self] in
            readLoop(onPacket)
            release()
            onEnd()
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(body).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            close()
            release()
            throw .readerThreadFailed(errno: rc)
        }
        // Nobody joins: `close()` must not wait, since it may run on the reader itself.
        pthread_detach(thread)
    }

    /// One packet; atomic on SOCK_SEQPACKET. MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
    func send(_ bytes: [UInt8]) throws(JouleApplicationError) {
        let result: Int32? = descriptors.withLock { d in
            guard d.open else { return nil }
            while true {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n == bytes.count { return 0 }
                if n < 0 && errno == EINTR { continue }
                return n < 0 ? errno : EMSGSIZE
            }
        }
        guard let result else { throw .closed }
        if result == EPIPE || result == ECONNRESET || result == ENOTCONN { throw .closed }
        if result != 0 { throw .sendFailed(errno: result, reason: Self.describe(errno: result)) }
    }

    /// Ends the connection now: shutdown(2) makes joule see the close (and end this
    /// connection's tasks) at once; the stop pipe wakes the reader, which then closes the fds.
    func close() {
        descriptors.withLock { d in
            guard d.open, !d.released else { return }
            d.open = false
            _ = shutdown(fd, Int32(SHUT_RDWR))
            var byte: UInt8 = 1
            _ = write(stopWrite, &byte, 1)
        }
    }

    private func release() {
        descriptors.withLock { d in
            guard !d.released else { return }
            d.open = false
            d.released = true
            _ = Glibc.close(fd)
            _ = Glibc.close(stopRead)
            _ = Glibc.close(stopWrite)
        }
    }

    private func readLoop(_ onPacket: @Sendable (Received) -> Void) {
        // One byte more than the protocol's limit plus MSG_TRUNC: recv returns the packet's real
        // length, so an oversized packet is recognised and its excess is discarded with it.
        var buffer = [UInt8](repeating: 0, count: LifecycleMessage.maxBytes + 1)
        while true {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }  // SIGSTOP/SIGCONT and other signals land here
                return
            }
            if fds[1].revents != 0 { return }
            let revents = fds[0].revents
            if revents == 0 { continue }
            let n = buffer.withUnsafeMutableBytes {
                recv(fd, $0.baseAddress, $0.count, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            if n == 0 {
                // End of file and an empty packet both read as 0; only a hang-up is the end.
                if revents & Int16(POLLHUP | POLLERR) != 0 { return }
                onPacket(.packet([]))
                continue
            }
            if n > LifecycleMessage.maxBytes {
                onPacket(.oversized(bytes: n))
            } else {
                onPacket(.packet(Array(buffer[0..<n])))
            }
        }
    }
}

/// The reader thread's closure, passed through pthread_create's context pointer.
private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
