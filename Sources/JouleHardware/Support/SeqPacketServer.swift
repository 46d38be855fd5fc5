import JouleWire


/// A listening AF_UNIX SOCK_SEQPACKET socket served by one thread in poll(2): the lifecycle
/// socket an app connects to (`JOULE_LIFECYCLE_SOCKET`) and the control socket of
/// `joule run`. Connections are numbered from 1 in accept order; everything that happens
/// arrives on `events`, in order. Sends never block: a peer that does not read (a frozen
/// app) loses the packet, and the caller hears `false`.
public final class SeqPacketServer: Sendable {
    public enum Event: Sendable, Hashable {
        case connected(Int, pid: Int32?, uid: UInt32?)
        /// A packet; `length` is its real size, which exceeds `bytes.count` when it was over
        /// the limit (only `limit + 1` bytes are kept).
        case packet(Int, bytes: [UInt8], length: Int)
        case closed(Int)
        /// A client was turned away: accept(2) failed (EMFILE, out of descriptors). It was
        /// accepted with the reserve descriptor and closed at once, so it hears EOF, not silence.
        case refused(Errno)
    }

    public let path: String
    public let limit: Int
    public let events: AsyncStream<Event>
    /// Connection id → descriptor, shared with the thread.
    private final class Table: Sendable {
        let fds = Locked<[Int: Int32]>([:])
    }
    private let table = Table()
    private let thread: StoppableThread
    /// Set by `stop()`, which removes the socket file itself: a process that exits right after
    /// stopping (a `joule run` whose program could not start) left it behind when only the
    /// thread removed it, and the thread must not remove a later server's file of that name.
    private let unlinked = Locked(false)

    /// Listens at `path` (replacing a stale socket there) with `mode`; packets over `limit`
    /// bytes are reported by length and not kept.
    public init(path: String, mode: UInt32 = 0o600, limit: Int) throws(HardwareError) {
        self.path = path
        self.limit = limit
        let queue = HandoffQueue<Event>()
        events = queue.stream()
        let listener = try Syscalls.listenSeqPacket(path, mode: mode)
        let table = table, unlinked = unlinked
        do {
            thread = try StoppableThread(name: "joule-seqpacket", body: { stopFD, ready throws(HardwareError) in
                ready()
                var spare = Syscalls.openSpareDescriptor()
                defer { if spare >= 0 { Syscalls.close(spare) } }
                var next = 1
                var order: [(id: Int, fd: Int32)] = []
                while true {
                    let fds = [stopFD, listener] + order.map(\.fd)
                    let readable = Syscalls.pollReadable(fds, timeout: -1)
                    if readable.contains(0) { return }
                    if readable.contains(1) {
                        switch Syscalls.acceptConnection(listener) {
                        case .connection(let fd):
                            let id = next
                            next += 1
                            order.append((id, fd))
                            table.fds.withLock { $0[id] = fd }
                            let peer = Syscalls.peerCredentials(fd)
                            queue.push(.connected(id, pid: peer?.pid, uid: peer?.uid))
                        case .none:
                            break
                        case .failed(let failure):
                            Syscalls.close(spare)
                            if case .connection(let fd) = Syscalls.acceptConnection(listener) { Syscalls.close(fd) }
                            spare = Syscalls.openSpareDescriptor()
                            queue.push(.refused(failure))
                            // Still failing with the reserve spent: do not spin on the listener.
                            if spare < 0 { _ = Syscalls.pollReadable([stopFD], timeout: 100) }
                        }
                    }
                    var gone: Set<Int> = []
                    for index in readable where index >= 2 {
                        let (id, fd) = order[index - 2]
                        // Drain what is queued, so one poll serves a burst.
                        reading: while true {
                            switch Syscalls.receivePacket(fd, limit: limit) {
                            case .packet(let bytes, let length): queue.push(.packet(id, bytes: bytes, length: length))
                            case .none: break reading
                            case .closed:
                                gone.insert(id)
                                break reading
                            }
                        }
                    }
                    for (id, fd) in order where gone.contains(id) {
                        table.fds.withLock { _ = $0.removeValue(forKey: id) }
                        Syscalls.close(fd)
                        queue.push(.closed(id))
                    }
                    order.removeAll { gone.contains($0.id) }
                }
            }, finished: {
                for fd in table.fds.withLock({ value -> [Int32] in defer { value = [:] }; return Array(value.values) }) {
                    Syscalls.close(fd)
                }
                Syscalls.close(listener)
                if !unlinked.withLock({ $0 }) { Syscalls.unlinkIfSocket(path) }
                queue.finish()
            })
        } catch {
            Syscalls.close(listener)
            Syscalls.unlinkIfSocket(path)
            throw error
        }
    }

    /// Sends `bytes` to one connection; false when it is gone or not reading.
    @discardableResult
    public func send(_ bytes: [UInt8], to connection: Int) -> Bool {
        table.fds.withLock { table in table[connection].map { Syscalls.sendPacket($0, bytes) } ?? false }
    }

    /// Sends `bytes` to every connection; returns how many took it.
    @discardableResult
    public func broadcast(_ bytes: [UInt8]) -> Int {
        table.fds.withLock { table in table.values.reduce(0) { $0 + (Syscalls.sendPacket($1, bytes) ? 1 : 0) } }
    }

    /// The connections open now.
    public var connectionCount: Int { table.fds.withLock { $0.count } }

    /// Ends one connection; `.closed` follows on `events`.
    public func disconnect(_ connection: Int) {
        table.fds.withLock { table in table[connection].map(Syscalls.shutdownSocket) }
    }

    /// Hands the socket file to `uid`/`gid`, so an app running as that user can connect.
    public func giveTo(uid: UInt32, gid: UInt32) throws(HardwareError) { try Syscalls.changeOwner(path, uid: uid, gid: gid) }

    /// Closes every connection and the listener, and removes the socket file.
    public func stop() {
        let first = unlinked.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { Syscalls.unlinkIfSocket(path) }
        thread.stop()
    }
}
