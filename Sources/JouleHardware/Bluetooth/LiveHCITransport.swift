import Dispatch
import Synchronization

/// EPIPE, the errno the kernel gives a socket whose adapter was unregistered.
private let brokenPipe: Int32 = 32

/// The live transport: a raw HCI socket on one adapter, read by a dedicated loop that
/// polls with a short timeout. Command completions wake the commands waiting for them; LE
/// events queue up for `nextEvent`, and a clock tick is queued every second so timers fire
/// while the air is quiet. All C calls go through `BluetoothGateway`.
public final class LiveHCITransport: HCITransport {
    public let adapter: BluetoothGateway.Adapter
    private let fd: Int32
    private let savedFilter: BluetoothGateway.SocketFilter
    private let state = Mutex(State())
    static let commandTimeoutMicros: Int64 = 2_000_000
    static let tickMicros: Int64 = 1_000_000

    private struct Waiter {
        var deadline: Int64
        var name: String
        var continuation: CheckedContinuation<Result<UInt8, HCITransportError>, Never>
    }

    private struct State {
        var events: [HCIEventRecord] = []
        var eventWaiter: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>?
        var commandWaiters: [UInt16: Waiter] = [:]
        /// No more events will be delivered (stop requested); commands still work.
        var eventsEnded = false
        var failure: HCITransportError?
        var closing = false
        var closed: CheckedContinuation<Void, Never>?
        var loopDone = false
    }

    /// Opens the adapter (`name`, or the first LE adapter that is up) and filters the socket.
    public init(adapter name: String?) throws(HCITransportError) {
        adapter = try BluetoothGateway.findAdapter(named: name)
        fd = try BluetoothGateway.open(adapter)
        do throws(HCITransportError) {
            savedFilter = try BluetoothGateway.currentFilter(fd, adapter: adapter.name)
            try BluetoothGateway.setScanFilter(fd, adapter: adapter.name)
        } catch {
            BluetoothGateway.close(fd)
            throw error
        }
        DispatchQueue(label: "joule.hci.\(adapter.name)").async { [self] in readLoop() }
    }

    public func send(_ command: HCICommand) async throws(HCITransportError) -> UInt8 {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<UInt8, HCITransportError>, Never>) in
            let refused: HCITransportError? = state.withLock { state in
                if let failure = state.failure { return failure }
                if state.closing { return .adapterGone(adapter.name, Errno(brokenPipe)) }
                state.commandWaiters[command.opcode] = Waiter(
                    deadline: Syscalls.realtimeMicros() + Self.commandTimeoutMicros, name: command.name,
                    continuation: continuation)
                return nil
            }
            if let refused { return continuation.resume(returning: .failure(refused)) }
            do throws(HCITransportError) {
                try BluetoothGateway.send(fd, command, adapter: adapter.name)
            } catch {
                let waiter = state.withLock { $0.commandWaiters.removeValue(forKey: command.opcode) }
                waiter?.continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    public func nextEvent() async throws(HCITransportError) -> HCIEventRecord? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>) in
            let ready: Result<HCIEventRecord?, HCITransportError>? = state.withLock { state in
                if !state.events.isEmpty { return .success(state.events.removeFirst()) }
                if let failure = state.failure { return .failure(failure) }
                if state.eventsEnded || state.closing { return .success(nil) }
                state.eventWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }

    /// Ends the event stream (SIGINT/SIGTERM) while keeping the socket open, so the caller
    /// can still disable scanning before `close()`. Safe from any thread.
    public func stopEvents() {
        let waiter = state.withLock { state in
            state.eventsEnded = true
            defer { state.eventWaiter = nil }
            return state.eventWaiter
        }
        waiter?.resume(returning: .success(nil))
    }

    /// Stops the read loop, restores the socket's original filter and closes it.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                state.closing = true
                if state.loopDone { return true }
                state.closed = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func readLoop() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        defer { buffer.deallocate() }
        var nextTick = Syscalls.realtimeMicros() + Self.tickMicros
        while !state.withLock({ $0.closing }) {
            if BluetoothGateway.waitReadable(fd, timeoutMs: 250) {
                switch BluetoothGateway.read(fd, into: buffer) {
                case .success(let n) where n > 1:
                    // The socket delivers H4 framing: the packet type byte, then the event.
                    if buffer[0] == HCIPacketType.event.rawValue {
                        handle(Array(UnsafeRawBufferPointer(rebasing: buffer[1..<n])))
                    }
                case .success:
                    break
                case .failure(let error):
                    fail(.adapterGone(adapter.name, error.errno ?? Errno.ioError))
                }
            }
            let now = Syscalls.realtimeMicros()
            expireCommands(now: now)
            if now >= nextTick {
                nextTick = now + Self.tickMicros
                deliver(HCIEventRecord(timestampMicros: now, bytes: []))
            }
            if state.withLock({ $0.failure != nil }) { break }
        }
        BluetoothGateway.restoreFilter(fd, savedFilter)
        BluetoothGateway.close(fd)
        let closed = state.withLock { state in
            state.loopDone = true
            state.closing = true
            defer { state.closed = nil }
            return state.closed
        }
        closed?.resume()
        // Anyone still waiting learns that the transport is gone.
        fail(.adapterGone(adapter.name, Errno(brokenPipe)), onlyWaiters: true)
    }

    private func handle(_ event: [UInt8]) {
        let now = Syscalls.realtimeMicros()
        guard event.count >= 2 else { return }
        switch event[0] {
        case HCIEvent.commandCompleteCode, HCIEvent.commandStatusCode:
            guard case .some(let decoded) = try? HCIEvent(bytes: event) else { return }
            let (opcode, status): (UInt16, UInt8)
            switch decoded {
            case .commandComplete(let op, let parameters): (opcode, status) = (op, parameters.first ?? HCIStatus.success)
            case .commandStatus(let s, let op): (opcode, status) = (op, s)
            default: return
            }
            let waiter = state.withLock { $0.commandWaiters.removeValue(forKey: opcode) }
            waiter?.continuation.resume(returning: .success(status))
        case HCIEvent.hardwareErrorCode:
            fail(.adapterGone(adapter.name, Errno.ioError))
        default:
            deliver(HCIEventRecord(timestampMicros: now, bytes: event))
        }
    }

    private func deliver(_ record: HCIEventRecord) {
        let waiter: CheckedContinuation<Result<HCIEventRecord?, HCITransportError>, Never>? = state.withLock { state in
            guard !state.eventsEnded else { return nil }
            if let waiter = state.eventWaiter {
                state.eventWaiter = nil
                return waiter
            }
            // Bounded: if nobody reads (a stalled consumer), old adverts are dropped, not hoarded.
            if state.events.count >= 4096 { state.events.removeFirst() }
            state.events.append(record)
            return nil
        }
        waiter?.resume(returning: .success(record))
    }

    private func expireCommands(now: Int64) {
        let expired: [Waiter] = state.withLock { state in
            let late = state.commandWaiters.filter { $0.value.deadline <= now }
            for key in late.keys { state.commandWaiters.removeValue(forKey: key) }
            return Array(late.values)
        }
        for waiter in expired { waiter.continuation.resume(returning: .failure(.commandTimeout(command: waiter.name))) }
    }

    private func fail(_ error: HCITransportError, onlyWaiters: Bool = false) {
        let (eventWaiter, commandWaiters) = state.withLock { state in
            if !onlyWaiters && state.failure == nil { state.failure = error }
            defer {
                state.eventWaiter = nil
                state.commandWaiters = [:]
            }
            return (state.eventWaiter, Array(state.commandWaiters.values))
        }
        eventWaiter?.resume(returning: .failure(error))
        for waiter in commandWaiters { waiter.continuation.resume(returning: .failure(error)) }
    }
}
