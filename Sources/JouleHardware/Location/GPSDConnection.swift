import JouleWire

/// A client of gpsd's JSON protocol (gpsd_json(5)) on its TCP socket, on a thread of its own:
/// the socket never leaves that thread, and no cooperative thread blocks on it.
///
/// While watching, it is connected and has sent `?WATCH={"enable":true,"json":true}`, so gpsd
/// opens the receiver and streams its reports. Told to stop watching, it sends
/// `?WATCH={"enable":false}` and closes the connection: with no watcher left, gpsd releases the
/// device, and closes it RELEASE_TIMEOUT (60 s, gpsd.c) later.
///
/// A connection that fails or breaks is reported as `.trouble` (naming gpsd, the address and
/// the errno) and retried after a back-off that doubles from `Backoff.initialMillis` to
/// `Backoff.maximumMillis`; the WATCH is sent again on the new connection. The back-off starts
/// over once gpsd has sent a line.
///
/// One consumer reads with `next(until:)`. Call `stop()` when done: it ends the thread.
public final class GPSDConnection: Sendable {
    public enum Read: Sendable, Equatable {
        /// One report as gpsd sent it (without its line end).
        case line(String)
        /// The connection failed or broke; it is being retried. The message names gpsd.
        case trouble(String)
        /// The wall-clock deadline passed.
        case deadline
        /// `stop()` was called, or the consumer's task was cancelled.
        case stopped
    }

    public struct Backoff: Sendable, Hashable {
        public var initialMillis: Int64
        public var maximumMillis: Int64

        public init(initialMillis: Int64 = 1000, maximumMillis: Int64 = 30_000) {
            self.initialMillis = max(1, initialMillis)
            self.maximumMillis = max(self.initialMillis, maximumMillis)
        }
    }

    /// A report longer than this is dropped (gpsd's longest, GPS_JSON_RESPONSE_MAX, is 10 KiB).
    public static let lineLimit = 16_384
    /// Lines waiting for the consumer beyond this drop the oldest.
    static let queueLimit = 4096
    static let connectTimeoutMillis: Int32 = 2000

    private struct Shared {
        var watching = false
        var stopped = false
        /// Set by `setWatching(true)`: connect now rather than at the back-off's next try.
        var connectNow = false
        var queue: [Read] = []
        var waiter: CheckedContinuation<Read, Never>?
        var waiterDeadline: Int64?
        var threadDone = false
    }

    public let address: GPSDAddress
    public let backoff: Backoff
    private let shared = Locked(Shared())
    private let wake: (read: Int32, write: Int32)

    /// Starts the thread; nothing is connected until `setWatching(true)`.
    public init(address: GPSDAddress, backoff: Backoff = Backoff()) throws(HardwareError) {
        self.address = address
        self.backoff = backoff
        wake = try Syscalls.wakePipe()
        do throws(HardwareError) {
            try Syscalls.detachThread(name: "joule-gpsd") { [self] in run() }
        } catch {
            Syscalls.close(wake.read)
            Syscalls.close(wake.write)
            throw error
        }
    }

    deinit {
        Syscalls.close(wake.read)
        Syscalls.close(wake.write)
    }

    /// On: connect (retrying) and WATCH. Off: WATCH disabled and the connection closed.
    /// Either way, lines still waiting from before are dropped: they belong to the last turn.
    public func setWatching(_ on: Bool) {
        shared.withLock { state in
            state.watching = on
            if on { state.connectNow = true }
            state.queue.removeAll { if case .line = $0 { true } else { false } }
        }
        Syscalls.poke(wake.write)
    }

    /// Ends the connection and the thread; a waiting `next` returns `.stopped`, and so does
    /// every later one. Safe from any thread (a signal handler's callback).
    public func stop() {
        let waiter = shared.withLock { state -> CheckedContinuation<Read, Never>? in
            state.stopped = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .stopped)
        Syscalls.poke(wake.write)
    }

    /// The next line or trouble, waiting until `deadlineMicros` on the wall clock (µs since
    /// the epoch; nil: no deadline). Cancelling the task stops the connection.
    public func next(until deadlineMicros: Int64?) async -> Read {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Read, Never>) in
                let immediate = shared.withLock { state -> Read? in
                    if !state.queue.isEmpty { return state.queue.removeFirst() }
                    if state.stopped { return .stopped }
                    if let deadlineMicros, WallClock.micros() >= deadlineMicros { return .deadline }
                    state.waiter = continuation
                    state.waiterDeadline = deadlineMicros
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                } else {
                    Syscalls.poke(wake.write)
                }
            }
        } onCancel: {
            stop()
        }
    }

    // MARK: The thread

    private func deliver(_ read: Read) {
        let waiter = shared.withLock { state -> CheckedContinuation<Read, Never>? in
            // A line read as the consumer turned watching off (poll saw the wake and the socket
            // at once) belongs to the last turn: dropped, as `setWatching` drops those queued.
            if case .line = read, !state.watching { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queue.append(read)
            if state.queue.count > Self.queueLimit { state.queue.removeFirst(state.queue.count - Self.queueLimit) }
            return nil
        }
        waiter?.resume(returning: read)
    }

    /// The thread's own state: the socket and what was read of a line so far.
    private struct Link {
        var fd: Int32?
        var pending: [UInt8] = []
        /// Inside a line longer than the limit: dropped up to its end.
        var discarding = false
        var retryAtNanos: Int64 = 0
        var backoffMillis: Int64
    }

    private static let watchOn = Array("?WATCH={\"enable\":true,\"json\":true};\n".utf8)
    private static let watchOff = Array("?WATCH={\"enable\":false};\n".utf8)

    private func run() {
        var link = Link(backoffMillis: backoff.initialMillis)
        while true {
            let (watching, stopped, connectNow) = shared.withLock { state in
                defer { state.connectNow = false }
                return (state.watching, state.stopped, state.connectNow)
            }
            if stopped || !watching, let fd = link.fd {
                _ = Syscalls.sendStream(fd, Self.watchOff)
                Syscalls.closeStream(fd)
                link.fd = nil
            }
            if stopped { return }
            let now = Int64(Syscalls.monotonicNanoseconds())
            if watching, link.fd == nil, connectNow || now >= link.retryAtNanos {
                connect(&link)
            }
            var timeout: Int64 = -1
            if watching, link.fd == nil {
                timeout = max(0, (link.retryAtNanos - Int64(Syscalls.monotonicNanoseconds()) + 999_999) / 1_000_000)
            }
            if let deadline = shared.withLock({ $0.waiter == nil ? nil : $0.waiterDeadline }) {
                let left = max(0, (deadline - WallClock.micros() + 999) / 1000)
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            let fds = [wake.read] + (link.fd.map { [$0] } ?? [])
            let ready = Syscalls.pollReadable(fds, timeout: Int32(clamping: timeout))
            if ready.contains(0) { Syscalls.drainWake(wake.read) }
            if ready.contains(1) { read(&link) }
            let expired = shared.withLock { state -> CheckedContinuation<Read, Never>? in
                guard let waiter = state.waiter, let deadline = state.waiterDeadline, WallClock.micros() >= deadline else { return nil }
                state.waiter = nil
                return waiter
            }
            expired?.resume(returning: .deadline)
        }
    }

    private func connect(_ link: inout Link) {
        let fd: Int32
        do throws(HardwareError) {
            fd = try Syscalls.connectStream(
                host: address.host, port: address.port, timeoutMillis: Self.connectTimeoutMillis, label: address.description)
        } catch {
            fail(&link, Self.reason(error), verb: "retrying")
            return
        }
        link.fd = fd
        link.pending = []
        link.discarding = false
        if let failure = Syscalls.sendStream(fd, Self.watchOn) { lose(&link, "send: \(failure)") }
    }

    private func read(_ link: inout Link) {
        guard let fd = link.fd else { return }
        while true {
            switch Syscalls.readStream(fd, limit: 65_536) {
            case .none: return
            case .closed: return lose(&link, "connection closed by gpsd (end of file)")
            case .failed(let failure): return lose(&link, "read: \(failure)")
            case .bytes(let bytes):
                var start = bytes.startIndex
                while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let piece = bytes[start..<newline]
                    start = newline + 1
                    if link.discarding {
                        link.discarding = false
                        link.pending = []
                        continue
                    }
                    link.pending.append(contentsOf: piece)
                    if link.pending.last == UInt8(ascii: "\r") { link.pending.removeLast() }
                    let line = link.pending
                    link.pending = []
                    guard line.count <= Self.lineLimit else { continue }
                    // gpsd answered: the next failure starts the back-off over.
                    link.backoffMillis = backoff.initialMillis
                    if !line.isEmpty { deliver(.line(String(decoding: line, as: UTF8.self))) }
                }
                if !link.discarding {
                    link.pending.append(contentsOf: bytes[start...])
                    if link.pending.count > Self.lineLimit {
                        link.pending = []
                        link.discarding = true
                    }
                }
            }
        }
    }

    /// The connection broke: close it, report, and reconnect after the back-off.
    private func lose(_ link: inout Link, _ reason: String) {
        if let fd = link.fd { Syscalls.closeStream(fd) }
        link.fd = nil
        link.pending = []
        fail(&link, reason, verb: "reconnecting")
    }

    private func fail(_ link: inout Link, _ reason: String, verb: String) {
        let wait = link.backoffMillis
        link.retryAtNanos = Int64(Syscalls.monotonicNanoseconds()) + wait * 1_000_000
        link.backoffMillis = min(wait * 2, backoff.maximumMillis)
        deliver(.trouble("gpsd at \(address): \(reason); \(verb) in \(Self.seconds(wait))"))
    }

    static func reason(_ error: HardwareError) -> String {
        "\(error.operation): " + (error.errno?.description ?? error.detail ?? "failed")
    }

    static func seconds(_ millis: Int64) -> String {
        millis % 1000 == 0 ? "\(millis / 1000) s" : "\(Double(millis) / 1000) s"
    }
}

extension GPSDConnection {
    /// Whether gpsd answers at `address`: connects and reads its VERSION banner within
    /// `timeoutMillis`, on a thread of its own, then closes. The failure names gpsd, the
    /// address and what went wrong.
    public static func probe(_ address: GPSDAddress, timeoutMillis: Int32 = 2000) async -> Result<GPSDVersion, GPSDProbeFailure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<GPSDVersion, GPSDProbeFailure>, Never>) in
            do throws(HardwareError) {
                try Syscalls.detachThread(name: "joule-gpsd-probe") {
                    continuation.resume(returning: probeBlocking(address, timeoutMillis: timeoutMillis))
                }
            } catch {
                continuation.resume(returning: .failure(GPSDProbeFailure(address: address, reason: reason(error))))
            }
        }
    }

    private static func probeBlocking(_ address: GPSDAddress, timeoutMillis: Int32) -> Result<GPSDVersion, GPSDProbeFailure> {
        func failure(_ reason: String) -> Result<GPSDVersion, GPSDProbeFailure> {
            .failure(GPSDProbeFailure(address: address, reason: reason))
        }
        let fd: Int32
        do throws(HardwareError) {
            fd = try Syscalls.connectStream(host: address.host, port: address.port, timeoutMillis: timeoutMillis, label: address.description)
        } catch {
            return failure(reason(error))
        }
        defer { Syscalls.closeStream(fd) }
        let deadline = Int64(Syscalls.monotonicNanoseconds()) + Int64(timeoutMillis) * 1_000_000
        var received: [UInt8] = []
        while true {
            let left = (deadline - Int64(Syscalls.monotonicNanoseconds())) / 1_000_000
            guard left > 0 else { return failure("no VERSION banner within \(seconds(Int64(timeoutMillis)))") }
            _ = Syscalls.pollReadable([fd], timeout: Int32(clamping: left))
            switch Syscalls.readStream(fd, limit: 4096) {
            case .none: continue
            case .closed: return failure("connection closed before the VERSION banner")
            case .failed(let error): return failure("read: \(error)")
            case .bytes(let bytes): received += bytes
            }
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[..<newline], as: UTF8.self)
                guard let version = GPSDVersion.decode(line: line) else {
                    return failure("sent \(line.prefix(80)) where its VERSION banner was expected: not gpsd?")
                }
                return .success(version)
            }
            if received.count > lineLimit { return failure("sent \(received.count) bytes without a line end: not gpsd?") }
        }
    }
}

/// gpsd did not answer: `gpsd at localhost:2947: connect: Connection refused (ECONNREFUSED)`.
public struct GPSDProbeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var address: GPSDAddress
    public var reason: String

    public init(address: GPSDAddress, reason: String) {
        self.address = address
        self.reason = reason
    }

    public var description: String { "gpsd at \(address): \(reason)" }
}
