import Dispatch
import JouleWire

/// The live transport: a raw HCI socket on one adapter, owned by a dedicated loop thread that
/// waits in poll(2) on the socket and on a wake pipe. Only that thread touches the socket:
/// it writes the commands queued by `send`, reads events, restores the filter and closes it.
/// Command deadlines and the clock tick (an empty event every second, so timers fire while
/// the air is quiet) run on the monotonic clock; events carry wall-clock time.
public final class LiveHCITransport: HCITransport {
    public let adapterName: String
    private let fd: Int32
    private let wake: (read: Int32, write: Int32)
    private let savedFilter: BluetoothGateway.SocketFilter?
    private let state = Locked(State())
    private let events = HCIEventQueue()
    private let commandTimeout: Duration
    private let tick: Duration
    private let clock = ContinuousClock()

    private struct Waiter {
        var deadline: ContinuousClock.Instant
        var name: String
        var continuation: CheckedContinuation<Result<UInt8, HCITransportError>, Never>
    }

    private struct State {
        var commandWaiters: [UInt16: Waiter] = [:]
        /// Commands for the loop thread to write, in order.
        var outbox: [HCICommand] = []
        var closing = false
        var closed: [CheckedContinuation<Void, Never>] = []
        var loopDone = false
    }

    /// Opens the adapter (`name`, or the first LE adapter that is up) and filters the socket.
    public convenience init(adapter name: String?) throws(HCITransportError) {
        let adapter = try BluetoothGateway.findAdapter(named: name)
        let fd = try BluetoothGateway.open(adapter)
        let saved: BluetoothGateway.SocketFilter
        do throws(HCITransportError) {
            saved = try BluetoothGateway.currentFilter(fd, adapter: adapter.name)
            try BluetoothGateway.setScanFilter(fd, adapter: adapter.name)
        } catch {
            BluetoothGateway.close(fd)
            throw error
        }
        try self.init(socket: fd, adapterName: adapter.name, savedFilter: saved)
    }

    /// Runs the transport over an open socket that speaks H4 packets (an HCI socket, or in
    /// tests one end of a socket pair). Takes ownership of `fd`.
    init(
        socket fd: Int32, adapterName: String, savedFilter: BluetoothGateway.SocketFilter?,
        commandTimeout: Duration = .seconds(2), tick: Duration = .seconds(1)
    ) throws(HCITransportError) {
        do throws(HardwareError) { wake = try Syscalls.wakePipe() } catch {
            if savedFilter == nil { BluetoothGateway.closeDescriptor(fd) } else { BluetoothGateway.close(fd) }
            throw .system(error)
        }
        self.fd = fd
        self.adapterName = adapterName
        self.savedFilter = savedFilter
        self.commandTimeout = commandTimeout
        self.tick = tick
        DispatchQueue(label: "joule.hci.\(adapterName)").async { [self] in readLoop() }
    }

    /// The wake pipe lives as long as the transport: a caller may still write to it after the
    /// loop has ended, and a closed descriptor's number could already belong to another file.
    deinit {
        BluetoothGateway.closeDescriptor(wake.read)
        BluetoothGateway.closeDescriptor(wake.write)
    }

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<UInt8, HCITransportError>, Never>) in
            let refused: HCITransportError? = state.withLock { state in
                if let failure = events.failure { return failure }
                if state.closing { return .adapterGone(adapterName, .brokenPipe) }
                state.commandWaiters[command.opcode] = Waiter(
                    deadline: clock.now + commandTimeout, name: command.name, continuation: continuation)
                state.outbox.append(command)
                return nil
            }
            if let refused { return continuation.resume(returning: .failure(refused)) }
            Syscalls.poke(wake.write)
        }
        return try result.get()
    }

    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? {
        try await events.next()
    }

    /// Ends the event stream (SIGINT/SIGTERM) while keeping the socket open, so the caller
    /// can still disable scanning before `close()`. Safe from any thread.
    public func stopEvents() { events.stop() }

    /// Wakes the loop to restore the socket's original filter and close it; returns once done.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                state.closing = true
                events.close()
                if state.loopDone { return true }
                state.closed.append(continuation)
                return false
            }
            if done { continuation.resume() } else { Syscalls.poke(wake.write) }
        }
    }

    // MARK: The loop thread

    private func readLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        defer { buffer.deallocate() }
        var nextTick = clock.now + tick
        while true {
            let (closing, outbox, earliestCommand): (Bool, [HCICommand], ContinuousClock.Instant?) = state.withLock { state in
                defer { state.outbox.removeAll() }
                return (state.closing, state.outbox, state.commandWaiters.values.map(\.deadline).min())
            }
            if closing { break }
            for command in outbox { write(command) }
            let ready = BluetoothGateway.wait(
                socket: fd, wake: wake.read, timeoutMs: Self.milliseconds(until: min(nextTick, earliestCommand ?? nextTick)))
            if ready.wake { Syscalls.drainWake(wake.read) }
            if ready.socket {
                switch BluetoothGateway.read(fd, into: buffer) {
                case .success(let n) where n > 1:
                    // The socket delivers H4 framing: the packet type byte, then the event.
                    if buffer[0] == HCIPacketType.event.rawValue {
                        handle(Array(UnsafeRawBufferPointer(rebasing: buffer[1..<n])))
                    }
                case .success:
                    break
                case .failure(let error):
                    fail(.adapterGone(adapterName, error.errno ?? .ioError))
                }
            }
            let now = clock.now
            expireCommands(now: now)
            if now >= nextTick {
                nextTick = now + tick
                deliver(HCIEventRecord(timestampMicros: WallClock.micros(), bytes: []))
            }
            if events.failure != nil { break }
        }
        if let savedFilter {
            BluetoothGateway.restoreFilter(fd, savedFilter)
            BluetoothGateway.close(fd)
        } else {
            BluetoothGateway.closeDescriptor(fd)
        }
        let closed = state.withLock { state in
            state.loopDone = true
            state.closing = true
            events.close()
            defer { state.closed = [] }
            return state.closed
        }
        // Anyone still waiting learns that the transport is gone.
        fail(.adapterGone(adapterName, .brokenPipe), onlyWaiters: true)
        for continuation in closed { continuation.resume() }
    }

    /// poll(2)'s timeout for a deadline: rounded up, so the loop never wakes just before it.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }

    private func write(_ command: HCICommand) {
        do throws(HCITransportError) { try BluetoothGateway.send(fd, command, adapter: adapterName) } catch {
            let waiter = state.withLock { $0.commandWaiters.removeValue(forKey: command.opcode) }
            waiter?.continuation.resume(returning: .failure(error))
        }
    }

    private func handle(_ event: [UInt8]) {
        guard event.count >= 2 else { return }
        if let answer = HCICommandAnswer(event: event) {
            answered(answer)
            return
        }
        if event[0] == HCIEvent.hardwareErrorCode {
            fail(.adapterGone(adapterName, .ioError))
        } else {
            deliver(HCIEventRecord(timestampMicros: WallClock.micros(), bytes: event))
        }
    }

    /// Wakes the command an answer belongs to. A malformed answer without a readable opcode
    /// fails every pending command: commands are sent one at a time, so it was one of them.
    private func answered(_ answer: HCICommandAnswer) {
        let woken: [(Waiter, Result<UInt8, HCITransportError>)] = state.withLock { state in
            switch answer {
            case .status(let opcode, let status):
                return state.commandWaiters.removeValue(forKey: opcode).map { [($0, .success(status))] } ?? []
            case .malformed(let opcode?, let error):
                return state.commandWaiters.removeValue(forKey: opcode).map { [($0, .failure(.malformedAnswer(command: $0.name, error)))] } ?? []
            case .malformed(nil, let error):
                defer { state.commandWaiters = [:] }
                return state.commandWaiters.values.map { ($0, .failure(.malformedAnswer(command: $0.name, error))) }
            }
        }
        for (waiter, result) in woken { waiter.continuation.resume(returning: result) }
    }

    private func deliver(_ record: HCIEventRecord) { events.deliver(record) }

    private func expireCommands(now: ContinuousClock.Instant) {
        let expired: [Waiter] = state.withLock { state in
            let late = state.commandWaiters.filter { $0.value.deadline <= now }
            for key in late.keys { state.commandWaiters.removeValue(forKey: key) }
            return Array(late.values)
        }
        for waiter in expired { waiter.continuation.resume(returning: .failure(.commandTimeout(command: waiter.name))) }
    }

    private func fail(_ error: HCITransportError, onlyWaiters: Bool = false) {
        events.fail(error, record: !onlyWaiters)
        let commandWaiters = state.withLock { state in
            defer { state.commandWaiters = [:] }
            return Array(state.commandWaiters.values)
        }
        for waiter in commandWaiters { waiter.continuation.resume(returning: .failure(error)) }
    }
}
