import Foundation
import Glibc
@testable import JouleApplication
import JouleWire

/// Joule's side of the lifecycle socket, for the tests: a listening SOCK_SEQPACKET socket in a
/// fresh temporary directory. The only test file that calls C. Every wait polls without
/// blocking a cooperative thread (the library's requests run on that pool) and gives up after
/// a bounded time, so a broken library fails a test instead of hanging it.
final class FakeJoule: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case timedOut(String)
        case closedByApp
        case unexpectedPacket(String)

        var description: String {
            switch self {
            case .system(let call, let e): return "\(call): \(String(cString: strerror(e)))"
            case .timedOut(let what): return "timed out waiting for \(what)"
            case .closedByApp: return "the app closed the connection"
            case .unexpectedPacket(let text): return "unexpected packet \(text)"
            }
        }
    }

    let directory: String
    let path: String
    private let listener: Int32

    init() throws {
        var template = Array("/tmp/joule-appclient-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure.system("mkdtemp", errno) }
        directory = String(cString: made)
        path = directory + "/lifecycle.sock"
        let s = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw Failure.system("socket", errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(s, 8) == 0 else {
            let e = errno
            _ = Glibc.close(s)
            throw Failure.system("bind/listen", e)
        }
        _ = fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK)
        listener = s
    }

    deinit {
        _ = Glibc.close(listener)
        _ = unlink(path)
        _ = rmdir(directory)
    }

    /// A path in this fake's directory where nothing listens.
    var absentPath: String { directory + "/absent.sock" }

    func accept(timeout: Duration = .seconds(30)) async throws -> FakeConnection {
        let deadline = ContinuousClock.now + timeout
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 { return FakeConnection(fd: fd) }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw Failure.system("accept", errno)
            }
            guard ContinuousClock.now < deadline else { throw Failure.timedOut("a connection") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func setEnvironment(_ path: String?) {
        if let path { setenv("JOULE_LIFECYCLE_SOCKET", path, 1) } else { unsetenv("JOULE_LIFECYCLE_SOCKET") }
    }
}

/// One accepted connection, as joule holds it.
final class FakeConnection: Sendable {
    private let fd: Locked<Int32>

    init(fd: Int32) { self.fd = Locked(fd) }

    deinit { close() }

    func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) throws {
        let n = fd.withLock { fd in bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
        guard n == bytes.count else { throw FakeJoule.Failure.system("send", errno) }
    }

    /// The next packet from the app.
    func receive(timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = fd.withLock { fd in recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { return String(decoding: buffer[0..<n], as: UTF8.self) }
            if n == 0 { throw FakeJoule.Failure.closedByApp }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw FakeJoule.Failure.system("recv", errno)
            }
            guard ContinuousClock.now < deadline else { throw FakeJoule.Failure.timedOut("a packet") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The next packet, parsed as a JSON object.
    func receiveObject(timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        let text = try await receive(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw FakeJoule.Failure.unexpectedPacket(text)
        }
        return object
    }

    /// Succeeds when the app has closed its end (no packet may come first).
    func receiveEndOfFile(timeout: Duration = .seconds(30)) async throws {
        do {
            let text = try await receive(timeout: timeout)
            throw FakeJoule.Failure.unexpectedPacket(text)
        } catch FakeJoule.Failure.closedByApp {
            return
        }
    }

    func close() {
        fd.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }
}
