import JouleWire

/// An app's side of joule's lifecycle socket, modelled on UIApplication.
///
/// A final class rather than an actor: the reader thread must update `applicationState`,
/// resolve replies and call the delegate synchronously, in packet order, without hopping
/// onto an executor; everything mutable sits behind one `Locked` (JouleWire's pthread mutex), so
/// the class is `Sendable` without `@unchecked`. What goes over the socket is JouleWire's
/// `LifecycleMessage`, the codec joule itself writes with.
///
/// ```swift
/// let app = try JouleApplication.connect(delegate: myDelegate)   // nil outside `joule run`
/// let id = try await app?.beginBackgroundTask(name: "save") { /* end it now */ }
/// ```
public final class JouleApplication: Sendable {
    /// The path this connection went to.
    public let socketPath: String

    private let socket: LifecycleSocket
    /// Held strongly (UIApplication's is weak, but here nothing else may own it); a delegate
    /// that keeps the app too forms a cycle, which only `close()` then ends.
    private let delegate: (any JouleApplicationDelegate)?
    private let state = Locked(State())

    private struct State {
        var applicationState = ApplicationState.active
        /// Requests awaiting replies, oldest first: joule answers in request order.
        var pending: [PendingRequest] = []
        /// Open tasks by joule's id; the handler is taken when it is called (once).
        var openTasks: [Int: (@Sendable () -> Void)?] = [:]
        var subscribers: [Int: AsyncStream<LifecycleEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var ended = false
        var ignoredPacketCount = 0
        var lastProtocolError: String?
    }

    private enum PendingRequest {
        case begin(expirationHandler: (@Sendable () -> Void)?, CheckedContinuation<BackgroundTaskIdentifier, any Error>)
        case remaining(CheckedContinuation<Double?, any Error>)
    }

    /// Connects to joule. Returns nil when `socketPath` is nil and `JOULE_LIFECYCLE_SOCKET` is
    /// unset or empty (the app was not started by `joule run`); throws
    /// `JouleApplicationError.connectFailed` naming the path and errno when connecting fails.
    public static func connect(
        socketPath: String? = nil,
        delegate: (any JouleApplicationDelegate)? = nil
    ) throws -> JouleApplication? {
        guard let path = socketPath ?? LifecycleSocket.environmentPath() else { return nil }
        let socket = try LifecycleSocket(connectingTo: path)
        let application = JouleApplication(socketPath: path, socket: socket, delegate: delegate)
        // Weak: the reader must not keep the app alive, or deinit (which closes) never runs.
        try socket.startReading(
            onPacket: { [weak application] in application?.handle($0) },
            onEnd: { [weak application] in application?.connectionEnded() })
        return application
    }

    private init(socketPath: String, socket: LifecycleSocket, delegate: (any JouleApplicationDelegate)?) {
        self.socketPath = socketPath
        self.socket = socket
        self.delegate = delegate
    }

    deinit {
        socket.close()
        connectionEnded()
    }

    // MARK: State

    /// Starts `active`; follows every event's `state` (set before the delegate hears the event).
    public var applicationState: ApplicationState { state.withLock { $0.applicationState } }

    /// Packets from joule that were malformed, oversized or unexpected, and ignored.
    public var ignoredPacketCount: Int { state.withLock { $0.ignoredPacketCount } }

    /// Why the last ignored packet was ignored, for diagnostics.
    public var lastProtocolError: String? { state.withLock { $0.lastProtocolError } }

    /// Tasks begun and not yet ended (nor ended by the connection closing).
    public var openBackgroundTaskCount: Int { state.withLock { $0.openTasks.count } }

    /// A new stream of the events received from now on; every call gets its own. It finishes
    /// when joule closes the socket or `close()` is called (at once if already closed).
    public var events: AsyncStream<LifecycleEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: LifecycleEvent.self)
        let id = state.withLock { s in
            defer { s.nextSubscriber += 1 }
            return s.nextSubscriber
        }
        // Set before registering, so a consumer that stops early is always unregistered.
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        let registered = state.withLock { s in
            guard !s.ended else { return false }
            s.subscribers[id] = continuation
            return true
        }
        if !registered { continuation.finish() }
        return stream
    }

    // MARK: Requests

    /// Asks joule for background time, as UIApplication's. Returns `.invalid` when joule
    /// refuses (no background time left). `expirationHandler` is called once, on the reader
    /// thread, when `backgroundTimeWillExpire` arrives while the task is open; it must end the
    /// task, or joule counts it as leaked and suspends the app. Not cancellable: the reply is
    /// paired by order, so the request stays in flight.
    public func beginBackgroundTask(
        name: String,
        expirationHandler: (@Sendable () -> Void)? = nil
    ) async throws -> BackgroundTaskIdentifier {
        let bytes = try Self.packet(.beginBackgroundTask(name: name))
        return try await withCheckedThrowingContinuation { continuation in
            enqueue(bytes, .begin(expirationHandler: expirationHandler, continuation)) {
                continuation.resume(throwing: $0)
            }
        }
    }

    /// Ends a task. Ending `.invalid`, an already-ended id, or any id after the connection
    /// closed (which ended every task) does nothing, as on iOS. No reply comes.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) throws {
        guard identifier != .invalid else { return }
        let bytes = try Self.packet(.endBackgroundTask(taskId: identifier.rawValue))
        try state.withLock { s throws(JouleApplicationError) in
            guard s.openTasks.removeValue(forKey: identifier.rawValue) != nil else { return }
            do throws(JouleApplicationError) {
                try socket.send(bytes)
            } catch {
                if error != .closed { throw error }
            }
        }
    }

    /// Seconds of background time left; nil in the foreground.
    public func backgroundTimeRemaining() async throws -> Double? {
        let bytes = try Self.packet(.backgroundTimeRemaining)
        return try await withCheckedThrowingContinuation { continuation in
            enqueue(bytes, .remaining(continuation)) { continuation.resume(throwing: $0) }
        }
    }

    /// Ends the connection: joule ends its tasks; streams finish; waiting requests throw
    /// `.closed`. Idempotent; also done by deinit.
    public func close() {
        socket.close()
        connectionEnded()
    }

    /// A request's packet, refused before sending when over the protocol's limit (a very long
    /// task name).
    private static func packet(_ request: LifecycleMessage) throws(JouleApplicationError) -> [UInt8] {
        let bytes = request.encoded
        guard bytes.count <= LifecycleMessage.maxBytes else { throw .requestTooLarge(bytes: bytes.count) }
        return bytes
    }

    /// Sends and records the request under one lock, so the pending order is the send order
    /// and the reader cannot see the reply before the request is recorded.
    private func enqueue(_ bytes: [UInt8], _ request: PendingRequest, failed: (any Error) -> Void) {
        do {
            try state.withLock { s throws(JouleApplicationError) in
                guard !s.ended else { throw .closed }
                try socket.send(bytes)
                s.pending.append(request)
            }
        } catch {
            failed(error)
        }
    }

    // MARK: Reader thread

    private func handle(_ received: LifecycleSocket.Received) {
        switch received {
        case .oversized(let bytes):
            ignore("packet of \(bytes) bytes exceeds \(LifecycleMessage.maxBytes)")
        case .packet(let bytes):
            let message: LifecycleMessage
            do {
                message = try LifecycleMessage.decodeFromJoule(bytes)
            } catch {
                ignore("malformed packet (\(bytes.count) bytes): \(error)")
                return
            }
            switch message {
            case .event(let name, let state, let deadline): deliver(LifecycleEvent(name: name, state: state, deadline: deadline))
            // The reply's `remaining` is not used: as on iOS, beginning a task gives only its id.
            case .taskBegan(let id, _): resolveTaskReply(id)
            case .remaining(let remaining): resolveRemainingReply(remaining)
            case .beginBackgroundTask, .endBackgroundTask, .backgroundTimeRemaining:
                // decodeFromJoule reads none of the app's own requests; kept for exhaustiveness.
                ignore("an app's request from joule: \(message)")
            }
        }
    }

    private func ignore(_ reason: String) {
        state.withLock {
            $0.ignoredPacketCount += 1
            $0.lastProtocolError = reason
        }
    }

    private func deliver(_ event: LifecycleEvent) {
        let (subscribers, handlers) = state.withLock { s in
            s.applicationState = event.state
            var handlers: [@Sendable () -> Void] = []
            if event.name == .backgroundTimeWillExpire {
                for id in s.openTasks.keys.sorted() {
                    if let handler = s.openTasks[id] ?? nil {
                        handlers.append(handler)
                        s.openTasks[id] = .some(nil)
                    }
                }
            }
            return (Array(s.subscribers.values), handlers)
        }
        for subscriber in subscribers { subscriber.yield(event) }
        // Outside the lock: handlers call endBackgroundTask, which takes it.
        for handler in handlers { handler() }
        guard let delegate else { return }
        switch event.name {
        case .willResignActive: delegate.applicationWillResignActive(self)
        case .didEnterBackground: delegate.applicationDidEnterBackground(self)
        case .backgroundTimeWillExpire: delegate.applicationBackgroundTimeWillExpire(self)
        case .willEnterForeground: delegate.applicationWillEnterForeground(self)
        case .didBecomeActive: delegate.applicationDidBecomeActive(self)
        case .backgroundTaskBegan, .backgroundTaskEnded, .suspended, .killed, .exited: break
        }
    }

    private enum Resolution {
        case task(CheckedContinuation<BackgroundTaskIdentifier, any Error>, BackgroundTaskIdentifier)
        case remaining(CheckedContinuation<Double?, any Error>, Double?)
        case mismatch(PendingRequest, String)
        case none
    }

    private func resolveTaskReply(_ id: Int?) {
        let resolution: Resolution = state.withLock { s in
            guard !s.pending.isEmpty else { return .none }
            let head = s.pending.removeFirst()
            guard case .begin(let handler, let continuation) = head else {
                return .mismatch(head, "taskId for a backgroundTimeRemaining request")
            }
            guard let id else { return .task(continuation, .invalid) }
            // Recorded before the caller resumes, so an expiry right after still finds it.
            s.openTasks[id] = .some(handler)
            return .task(continuation, BackgroundTaskIdentifier(rawValue: id))
        }
        finish(resolution, unsolicited: "taskId reply with no request waiting")
    }

    private func resolveRemainingReply(_ remaining: Double?) {
        let resolution: Resolution = state.withLock { s in
            guard !s.pending.isEmpty else { return .none }
            let head = s.pending.removeFirst()
            guard case .remaining(let continuation) = head else {
                return .mismatch(head, "remaining without taskId for a beginBackgroundTask request")
            }
            return .remaining(continuation, remaining)
        }
        finish(resolution, unsolicited: "remaining reply with no request waiting")
    }

    private func finish(_ resolution: Resolution, unsolicited: String) {
        switch resolution {
        case .task(let continuation, let id): continuation.resume(returning: id)
        case .remaining(let continuation, let value): continuation.resume(returning: value)
        case .mismatch(let request, let detail):
            ignore("unexpected reply: \(detail)")
            fail(request, JouleApplicationError.unexpectedReply(detail))
        case .none: ignore(unsolicited)
        }
    }

    private func fail(_ request: PendingRequest, _ error: any Error) {
        switch request {
        case .begin(_, let continuation): continuation.resume(throwing: error)
        case .remaining(let continuation): continuation.resume(throwing: error)
        }
    }

    /// Joule closed the socket, or `close()`: tasks ended with the connection. Idempotent.
    private func connectionEnded() {
        let (subscribers, pending) = state.withLock { s in
            guard !s.ended else { return ([AsyncStream<LifecycleEvent>.Continuation](), [PendingRequest]()) }
            s.ended = true
            s.openTasks.removeAll()
            defer { s.subscribers.removeAll(); s.pending.removeAll() }
            return (Array(s.subscribers.values), s.pending)
        }
        for subscriber in subscribers { subscriber.finish() }
        for request in pending { fail(request, JouleApplicationError.closed) }
    }
}
