import CSdBusShims
import CSystemd
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
import JouleWire

/// The one place where Joule calls sd-bus (libsystemd).
///
/// sd-bus objects are not thread-safe: one dedicated thread creates the bus, and every sd-bus
/// call, callback and message lives and dies on it. That thread sleeps in poll(2) on the bus
/// descriptor (`sd_bus_get_fd`/`sd_bus_get_events`/`sd_bus_get_timeout`) and on a wake pipe, and
/// runs `sd_bus_process` until it has nothing left: with nothing to do it does not wake at all.
/// Work from Swift concurrency arrives as jobs through `submit`, which pokes the pipe. Values
/// cross the thread boundary as `BusValue`s; no sd-bus pointer leaves this file.
final class SdBusGateway: Sendable {
    typealias Job = @Sendable (Loop) -> Void

    /// The address, for error messages.
    let target: String
    private let wake: (read: Int32, write: Int32)
    private let inbox = Locked(Inbox())
    private let pollReturns = Atomic<Int>(0)

    /// How many times the loop has come back from poll(2): flat while the bus is idle.
    var wakeups: Int { pollReturns.load(ordering: .relaxed) }

    private struct Inbox {
        var jobs: [Job] = []
        var closing = false
        var ended = false
        var closed: [CheckedContinuation<Void, Never>] = []
        /// Why the connection ended without being asked to (the bus went away), once it has.
        var lost: BusError?
        var lostWatchers: [Int: HandoffQueue<BusError>] = [:]
        var lastWatcher = 0
    }

    private init(target: String, wake: (read: Int32, write: Int32)) {
        self.target = target
        self.wake = wake
    }

    /// The pipe outlives the loop: a late `submit` may still poke it.
    deinit {
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// Starts the bus thread, which connects to `address` (`sd_bus_new`, `sd_bus_set_address`,
    /// `sd_bus_set_bus_client`, `sd_bus_start`) and says Hello. Returns the unique name.
    static func open(address: String) async throws(BusError) -> (SdBusGateway, String) {
        let pipe: (read: Int32, write: Int32)
        do throws(HardwareError) { pipe = try Syscalls.pipe() } catch {
            throw .system(operation: "pipe", target: address, errno: error.errno ?? .ioError)
        }
        let gateway = SdBusGateway(target: address, wake: pipe)
        let opened = await Handoff<Result<String, BusError>>.wait { continuation in
            let started = startThread { Loop.run(gateway: gateway, address: address, opened: continuation) }
            if let started { continuation.resume(returning: .failure(started)) }
        }
        return (gateway, try opened.get())
    }

    /// Queues `job` for the bus thread. False once the connection is closing or closed.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        let accepted = inbox.withLock { inbox in
            if inbox.closing || inbox.ended { return false }
            inbox.jobs.append(job)
            return true
        }
        if accepted { Syscalls.poke(wake.write) }
        return accepted
    }

    /// Runs `body` on the bus thread and returns what it returned.
    func perform<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (Loop) throws(BusError) -> T
    ) async throws(BusError) -> T {
        let result = await Handoff<Result<T, BusError>>.wait { continuation in
            let accepted = submit { loop in
                do throws(BusError) { continuation.resume(returning: .success(try body(loop))) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if !accepted { continuation.resume(returning: .failure(.closed(operation: operation))) }
        }
        return try result.get()
    }

    /// Starts a call whose reply arrives later through `sd_bus_call_async`.
    func call(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue],
        timeoutMicroseconds: UInt64
    ) async throws(BusError) -> [BusValue] {
        let operation = "\(interface).\(member)"
        let result = await Handoff<Result<[BusValue], BusError>>.wait { continuation in
            let accepted = submit { loop in
                loop.startCall(
                    destination: destination, path: path, interface: interface, member: member,
                    arguments: arguments, timeoutMicroseconds: timeoutMicroseconds, continuation: continuation)
            }
            if !accepted { continuation.resume(returning: .failure(.closed(operation: operation))) }
        }
        return try result.get()
    }

    /// Asks the loop to release everything and close the bus; returns once it has.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = inbox.withLock { inbox in
                inbox.closing = true
                if inbox.ended { return true }
                inbox.closed.append(continuation)
                return false
            }
            if done { continuation.resume() } else { Syscalls.poke(wake.write) }
        }
    }

    /// Asks the loop to close without waiting (the facade's deinit).
    func requestClose() {
        inbox.withLock { $0.closing = true }
        Syscalls.poke(wake.write)
    }

    /// Yields once, why, if the connection ends without `close` (the bus went away), then
    /// finishes; finishes without a value when it is closed from here.
    func lost() -> AsyncStream<BusError> {
        let queue = HandoffQueue<BusError>()
        let id: Int? = inbox.withLock { inbox in
            if inbox.ended {
                if let lost = inbox.lost { queue.push(lost) }
                queue.finish()
                return nil
            }
            inbox.lastWatcher += 1
            inbox.lostWatchers[inbox.lastWatcher] = queue
            return inbox.lastWatcher
        }
        guard let id else { return queue.stream() }
        return queue.stream { [weak self] in
            _ = self?.inbox.withLock { $0.lostWatchers.removeValue(forKey: id) }
        }
    }

    fileprivate func takeJobs() -> (jobs: [Job], closing: Bool) {
        inbox.withLock { inbox in
            defer { inbox.jobs.removeAll() }
            return (inbox.jobs, inbox.closing)
        }
    }

    /// The loop is over; `lost` says why when nobody asked it to close.
    fileprivate func markEnded(lost: BusError? = nil) {
        let (waiters, watchers, reason) = inbox.withLock { inbox in
            inbox.ended = true
            inbox.jobs.removeAll()
            if !inbox.closing { inbox.lost = lost }
            defer {
                inbox.closed.removeAll()
                inbox.lostWatchers.removeAll()
            }
            return (inbox.closed, Array(inbox.lostWatchers.values), inbox.lost)
        }
        for waiter in waiters { waiter.resume() }
        for watcher in watchers {
            if let reason { watcher.push(reason) }
            watcher.finish()
        }
    }

    /// One read: the pipe blocks, and poll(2) is level-triggered, so bytes left over (more
    /// than 4096 pokes) only wake the loop once more.
    fileprivate func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = Glibc.read(wake.read, &buffer, buffer.count)
    }

    fileprivate var wakeDescriptor: Int32 { wake.read }

    /// A dedicated pthread (not a pool thread): the bus lives on it from creation to close.
    private static func startThread(_ body: @escaping () -> Void) -> BusError? {
        final class Start {
            let body: () -> Void
            init(_ body: @escaping () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Start(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return .system(operation: "pthread_create", target: "sd-bus thread", errno: Errno(status))
        }
        pthread_detach(thread)
        return nil
    }
}

// MARK: Results from the bus thread

extension SdBusGateway {
    /// A result made on the bus thread for the task awaiting it. It travels through a lock as
    /// well as the continuation: ThreadSanitizer does not see the Concurrency runtime order a
    /// resume from this foreign thread before the awaiting task reads the value, and reported
    /// every reply as a race.
    struct Handoff<Value: Sendable>: Sendable {
        private let box: Locked<Value?>
        private let continuation: CheckedContinuation<Void, Never>

        func resume(returning value: Value) {
            box.withLock { $0 = value }
            continuation.resume()
        }

        /// Runs `start` with a handoff and returns what it was resumed with.
        static func wait(_ start: (Handoff) -> Void) async -> Value {
            let box = Locked<Value?>(nil)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                start(Handoff(box: box, continuation: continuation))
            }
            // A handoff resumes only after storing its value.
            return box.withLock { $0.take()! }
        }
    }
}

// MARK: The bus thread

extension SdBusGateway {
    /// Everything that exists only on the bus thread: the bus, exported objects, calls awaiting
    /// a reply (both ways) and match slots. Not Sendable: jobs receive it on that thread.
    final class Loop {
        let gateway: SdBusGateway
        fileprivate let bus: OpaquePointer
        private var lastID = 0
        private var objects: [String: ExportedObject] = [:]
        private var pendingReplies: [Int: OpaquePointer] = [:]
        private var pendingCalls: [Int: PendingCall] = [:]
        private var matches: [Int: Match] = [:]
        private var objectManagers: [String: OpaquePointer] = [:]

        private init(gateway: SdBusGateway, bus: OpaquePointer) {
            self.gateway = gateway
            self.bus = bus
        }

        private func nextID() -> Int {
            lastID += 1
            return lastID
        }

        static func run(
            gateway: SdBusGateway, address: String, opened: Handoff<Result<String, BusError>>
        ) {
            var created: OpaquePointer?
            var status = sd_bus_new(&created)
            guard status >= 0, let bus = created else {
                gateway.markEnded()
                return opened.resume(returning: .failure(.system(operation: "sd_bus_new", target: address, errno: Errno(-status))))
            }
            var failed: String?
            status = sd_bus_set_address(bus, address)
            if status < 0 { failed = "sd_bus_set_address" }
            if failed == nil {
                status = sd_bus_set_bus_client(bus, 1)
                if status < 0 { failed = "sd_bus_set_bus_client" }
            }
            if failed == nil {
                status = sd_bus_start(bus)
                if status < 0 { failed = "sd_bus_start" }
            }
            var unique: UnsafePointer<CChar>?
            if failed == nil {
                // Waits for the reply to Hello.
                status = sd_bus_get_unique_name(bus, &unique)
                if status < 0 { failed = "sd_bus_get_unique_name" }
            }
            if let failed {
                sd_bus_flush_close_unref(bus)
                gateway.markEnded()
                return opened.resume(returning: .failure(.system(operation: failed, target: address, errno: Errno(-status))))
            }
            let loop = Loop(gateway: gateway, bus: bus)
            opened.resume(returning: .success(unique.map { String(cString: $0) } ?? ""))
            let lost = loop.serve()
            loop.shutdown()
            gateway.markEnded(lost: lost)
        }

        /// Runs jobs, dispatches everything sd-bus has, then sleeps in poll(2) until the bus
        /// descriptor, its next timeout (a pending call's) or the wake pipe says otherwise.
        /// Returns nil when asked to close, or why the bus went away.
        private func serve() -> BusError? {
            while true {
                let (jobs, closing) = gateway.takeJobs()
                for job in jobs { job(self) }
                if closing { return nil }
                while true {
                    let status = sd_bus_process(bus, nil)
                    // Disconnected (ECONNRESET, ENOTCONN): shutdown fails what is pending.
                    if status < 0 { return .system(operation: "sd_bus_process", target: gateway.target, errno: Errno(-status)) }
                    if status == 0 { break }
                }
                let fd = sd_bus_get_fd(bus)
                let events = sd_bus_get_events(bus)
                if fd < 0 || events < 0 {
                    return .system(operation: "sd_bus_get_events", target: gateway.target, errno: Errno(-min(fd, events)))
                }
                var deadline: UInt64 = .max
                _ = sd_bus_get_timeout(bus, &deadline)
                var fds = [
                    pollfd(fd: fd, events: Int16(truncatingIfNeeded: events), revents: 0),
                    pollfd(fd: gateway.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&fds, 2, Self.milliseconds(until: deadline))
                gateway.pollReturns.add(1, ordering: .relaxed)
                if ready < 0 && errno != EINTR { return .system(operation: "poll", target: gateway.target, errno: Errno(errno)) }
                if fds[1].revents != 0 { gateway.drainWake() }
            }
        }

        /// poll(2)'s timeout for sd-bus's absolute CLOCK_MONOTONIC deadline: -1 for none.
        private static func milliseconds(until deadline: UInt64) -> Int32 {
            if deadline == .max { return -1 }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            if deadline <= nowMicros { return 0 }
            return Int32(clamping: (deadline - nowMicros + 999) / 1000)
        }

        private func shutdown() {
            for match in matches.values {
                sd_bus_slot_unref(match.slot)
                match.queue.finish()
            }
            matches.removeAll()
            for object in objects.values { object.release() }
            for slot in objectManagers.values { sd_bus_slot_unref(slot) }
            objectManagers.removeAll()
            objects.removeAll()
            for message in pendingReplies.values { sd_bus_message_unref(message) }
            pendingReplies.removeAll()
            sd_bus_flush_close_unref(bus)
            for call in pendingCalls.values {
                call.continuation.resume(returning: .failure(.closed(operation: call.operation)))
            }
            pendingCalls.removeAll()
        }

        // MARK: names

        /// `sd_bus_request_name` without queueing; when the name is taken, asks the bus for
        /// the owner's pid (GetConnectionUnixProcessID) to name it in the error.
        func requestName(_ name: String) throws(BusError) {
            let status = sd_bus_request_name(bus, name, 0)
            if status == -EEXIST {
                let owner = try? callSynchronously(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                    arguments: [.string(name)])
                throw .nameTaken(name: name, ownerPID: owner?.first?.uint32Value.map { Int32(bitPattern: $0) })
            }
            if status < 0 { throw .system(operation: "sd_bus_request_name", target: name, errno: Errno(-status)) }
        }

        func releaseName(_ name: String) throws(BusError) {
            let status = sd_bus_release_name(bus, name)
            if status < 0 { throw .system(operation: "sd_bus_release_name", target: name, errno: Errno(-status)) }
        }

        // MARK: exported objects

        func export(_ interface: BusInterface, at path: String) throws(BusError) {
            let key = path + " " + interface.name
            let target = "\(path) \(interface.name)"
            guard objects[key] == nil else {
                throw .system(operation: "sd_bus_add_object_vtable", target: target, errno: Errno(EEXIST))
            }
            var strings: [UnsafeMutablePointer<CChar>] = []
            defer { for string in strings { free(string) } }
            func copy(_ text: String) -> UnsafePointer<CChar> {
                let pointer = strdup(text)!
                strings.append(pointer)
                return UnsafePointer(pointer)
            }
            /// SD_BUS_PARAM's layout: each name followed by a NUL.
            func names(_ list: [String]) -> (UnsafePointer<CChar>?, Int) {
                let bytes: [UInt8] = list.flatMap { name -> [UInt8] in Array(name.utf8) + [0] }
                guard !bytes.isEmpty else { return (nil, 0) }
                let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
                pointer[bytes.count] = 0
                strings.append(pointer)
                return (UnsafePointer(pointer), bytes.count)
            }
            var members: [joule_sd_bus_member] = []
            for property in interface.properties {
                members.append(
                    joule_sd_bus_member(
                        kind: Int32(JOULE_SD_BUS_MEMBER_PROPERTY), name: copy(property.name),
                        signature: copy(property.signature), result: nil, names: nil, names_length: 0,
                        emits_change: property.emitsChange ? 1 : 0))
            }
            for method in interface.methods {
                let (list, length) = names(method.inNames + method.outNames)
                members.append(
                    joule_sd_bus_member(
                        kind: Int32(JOULE_SD_BUS_MEMBER_METHOD), name: copy(method.name),
                        signature: copy(method.inSignature), result: copy(method.outSignature), names: list,
                        names_length: length, emits_change: 0))
            }
            for signal in interface.signals {
                let (list, length) = names(signal.names)
                members.append(
                    joule_sd_bus_member(
                        kind: Int32(JOULE_SD_BUS_MEMBER_SIGNAL), name: copy(signal.name),
                        signature: copy(signal.signature), result: nil, names: list, names_length: length,
                        emits_change: 0))
            }
            let vtable = members.withUnsafeBufferPointer { buffer in
                joule_sd_bus_vtable_new(
                    buffer.baseAddress, buffer.count,
                    { _, _, _, property, reply, userdata, _ in Loop.readProperty(property, reply, userdata) },
                    { message, userdata, _ in Loop.methodCalled(message, userdata) })
            }
            guard let vtable else {
                throw .system(operation: "joule_sd_bus_vtable_new", target: target, errno: Errno(ENOMEM))
            }
            let object = ExportedObject(loop: self, interface: interface, vtable: vtable)
            var slot: OpaquePointer?
            let status = sd_bus_add_object_vtable(
                bus, &slot, path, interface.name, vtable, Unmanaged.passUnretained(object).toOpaque())
            guard status >= 0 else {
                joule_sd_bus_vtable_free(vtable)
                throw .system(operation: "sd_bus_add_object_vtable", target: target, errno: Errno(-status))
            }
            object.slot = slot
            objects[key] = object
        }

        /// sd_bus_add_object_manager: org.freedesktop.DBus.ObjectManager at `path`, listing the
        /// objects exported below it (what BlueZ's RegisterMonitor and RegisterApplication read).
        func addObjectManager(at path: String) throws(BusError) {
            guard objectManagers[path] == nil else { return }
            var slot: OpaquePointer?
            let status = sd_bus_add_object_manager(bus, &slot, path)
            guard status >= 0, let slot else {
                throw .system(operation: "sd_bus_add_object_manager", target: path, errno: Errno(-status))
            }
            objectManagers[path] = slot
        }

        func removeObjectManager(at path: String) {
            if let slot = objectManagers.removeValue(forKey: path) { sd_bus_slot_unref(slot) }
        }

        func unexport(path: String, interface: String) {
            objects.removeValue(forKey: path + " " + interface)?.release()
        }

        private static func readProperty(
            _ property: UnsafePointer<CChar>?, _ reply: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?
        ) -> Int32 {
            guard let property, let reply, let userdata else { return -EINVAL }
            let object = Unmanaged<ExportedObject>.fromOpaque(userdata).takeUnretainedValue()
            let name = String(cString: property)
            guard let found = object.interface.properties.first(where: { $0.name == name }) else { return -ENOENT }
            let value = found.get()
            guard value.signature == found.signature else { return -EINVAL }
            do throws(BusError) { try append(value, to: reply, operation: "Get \(name)") } catch {
                if case .system(_, _, let errno) = error { return -errno.rawValue }
                return -EINVAL
            }
            return 1
        }

        /// Copies the call out, keeps a reference to the message, and runs the handler as a
        /// task; its answer comes back as a job (`reply`). Returning 1 tells sd-bus the call
        /// is handled and the reply will follow.
        private static func methodCalled(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
            guard let message, let userdata else { return -EINVAL }
            let object = Unmanaged<ExportedObject>.fromOpaque(userdata).takeUnretainedValue()
            return object.loop.dispatch(message, to: object)
        }

        private func dispatch(_ message: OpaquePointer, to object: ExportedObject) -> Int32 {
            let member = Self.string(sd_bus_message_get_member(message))
            guard let method = object.interface.methods.first(where: { $0.name == member }) else { return -ENOENT }
            let arguments: [BusValue]
            do throws(BusError) { arguments = try Self.readAll(message, operation: member) } catch { return -EBADMSG }
            let call = BusMethodCall(
                sender: Self.string(sd_bus_message_get_sender(message)),
                path: Self.string(sd_bus_message_get_path(message)),
                interface: object.interface.name, member: member, arguments: arguments)
            let id = nextID()
            pendingReplies[id] = sd_bus_message_ref(message)
            let gateway = self.gateway
            let handler = method.handler
            let outSignature = method.outSignature
            Task {
                var outcome: Result<[BusValue], BusMethodError>
                do throws(BusMethodError) { outcome = .success(try await handler(call)) } catch {
                    outcome = .failure(error)
                }
                if case .success(let values) = outcome, values.map(\.signature).joined() != outSignature {
                    outcome = .failure(
                        .failed("\(member) answered \(values.map(\.signature).joined()), not \(outSignature)"))
                }
                let answer = outcome
                gateway.submit { loop in loop.reply(to: id, with: answer) }
            }
            return 1
        }

        private func reply(to id: Int, with outcome: Result<[BusValue], BusMethodError>) {
            guard let call = pendingReplies.removeValue(forKey: id) else { return }
            defer { sd_bus_message_unref(call) }
            switch outcome {
            case .success(let values):
                var created: OpaquePointer?
                guard sd_bus_message_new_method_return(call, &created) >= 0, let reply = created else { return }
                defer { sd_bus_message_unref(reply) }
                do throws(BusError) {
                    for value in values { try Self.append(value, to: reply, operation: "method return") }
                    _ = sd_bus_send(bus, reply, nil)
                } catch {
                    replyError(call, .failed("\(error)"))
                }
            case .failure(let failure):
                replyError(call, failure)
            }
        }

        private func replyError(_ call: OpaquePointer, _ failure: BusMethodError) {
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            _ = sd_bus_error_set(&error, failure.name, failure.message)
            _ = sd_bus_reply_method_error(call, &error)
        }

        // MARK: signals

        func emitSignal(path: String, interface: String, member: String, arguments: [BusValue], destination: String?) throws(BusError) {
            let operation = "sd_bus_message_new_signal"
            var created: OpaquePointer?
            let status = sd_bus_message_new_signal(bus, &created, path, interface, member)
            guard status >= 0, let message = created else {
                throw .system(operation: operation, target: "\(path) \(interface).\(member)", errno: Errno(-status))
            }
            defer { sd_bus_message_unref(message) }
            if let destination {
                // A unicast signal: only that client hears it (a location is personal).
                let set = sd_bus_message_set_destination(message, destination)
                if set < 0 { throw .system(operation: "sd_bus_message_set_destination", target: destination, errno: Errno(-set)) }
            }
            for argument in arguments { try Self.append(argument, to: message, operation: "\(interface).\(member)") }
            try send(message, target: "\(path) \(interface).\(member)")
        }

        func emitPropertiesChanged(path: String, interface: String, names: [String]) throws(BusError) {
            var pointers: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
            defer { for pointer in pointers { free(pointer) } }
            let status = pointers.withUnsafeMutableBufferPointer { buffer in
                sd_bus_emit_properties_changed_strv(bus, path, interface, buffer.baseAddress)
            }
            if status < 0 {
                throw .system(
                    operation: "sd_bus_emit_properties_changed_strv", target: "\(path) \(interface)",
                    errno: Errno(-status))
            }
        }

        /// `sd_bus_add_match`, which waits for the bus daemon to confirm the rule, so signals
        /// sent after this returns are delivered.
        func addMatch(_ rule: String, queue: HandoffQueue<BusSignalMessage>) throws(BusError) -> Int {
            let match = Match(queue: queue)
            var slot: OpaquePointer?
            let status = sd_bus_add_match(
                bus, &slot, rule, { message, userdata, _ in Loop.matched(message, userdata) },
                Unmanaged.passUnretained(match).toOpaque())
            guard status >= 0 else { throw .system(operation: "sd_bus_add_match", target: rule, errno: Errno(-status)) }
            match.slot = slot
            let id = nextID()
            matches[id] = match
            return id
        }

        var matchCount: Int { matches.count }

        func removeMatch(_ id: Int) {
            guard let match = matches.removeValue(forKey: id) else { return }
            sd_bus_slot_unref(match.slot)
            match.queue.finish()
        }

        private static func matched(_ message: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
            guard let message, let userdata else { return 0 }
            let match = Unmanaged<Match>.fromOpaque(userdata).takeUnretainedValue()
            let member = string(sd_bus_message_get_member(message))
            guard let arguments = try? readAll(message, operation: member) else { return 0 }
            match.queue.push(
                BusSignalMessage(
                    sender: string(sd_bus_message_get_sender(message)), path: string(sd_bus_message_get_path(message)),
                    interface: string(sd_bus_message_get_interface(message)), member: member, arguments: arguments))
            return 0
        }

        // MARK: calls to other services

        private func newMethodCall(
            destination: String, path: String, interface: String, member: String, arguments: [BusValue]
        ) throws(BusError) -> OpaquePointer {
            var created: OpaquePointer?
            let status = sd_bus_message_new_method_call(bus, &created, destination, path, interface, member)
            guard status >= 0, let message = created else {
                throw .system(
                    operation: "sd_bus_message_new_method_call", target: "\(destination) \(interface).\(member)",
                    errno: Errno(-status))
            }
            do throws(BusError) {
                for argument in arguments { try Self.append(argument, to: message, operation: "\(interface).\(member)") }
            } catch {
                sd_bus_message_unref(message)
                throw error
            }
            return message
        }

        /// `sd_bus_call`: blocks the bus thread until the reply, so only for short questions to
        /// the bus daemon itself (the owner of a taken name).
        func callSynchronously(
            destination: String, path: String, interface: String, member: String, arguments: [BusValue]
        ) throws(BusError) -> [BusValue] {
            let message = try newMethodCall(
                destination: destination, path: path, interface: interface, member: member, arguments: arguments)
            defer { sd_bus_message_unref(message) }
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var received: OpaquePointer?
            let status = sd_bus_call(bus, message, 0, &error, &received)
            let operation = "\(interface).\(member)"
            guard status >= 0, let reply = received else {
                if let name = error.name {
                    throw .remote(
                        operation: operation, target: destination, name: String(cString: name),
                        message: Self.string(error.message))
                }
                throw .system(operation: "sd_bus_call \(operation)", target: destination, errno: Errno(-status))
            }
            defer { sd_bus_message_unref(reply) }
            return try Self.readAll(reply, operation: operation)
        }

        fileprivate func startCall(
            destination: String, path: String, interface: String, member: String, arguments: [BusValue],
            timeoutMicroseconds: UInt64, continuation: Handoff<Result<[BusValue], BusError>>
        ) {
            let operation = "\(interface).\(member)"
            let message: OpaquePointer
            do throws(BusError) {
                message = try newMethodCall(
                    destination: destination, path: path, interface: interface, member: member, arguments: arguments)
            } catch {
                return continuation.resume(returning: .failure(error))
            }
            defer { sd_bus_message_unref(message) }
            let pending = PendingCall(
                id: nextID(), operation: operation, destination: destination, loop: self, continuation: continuation)
            let status = sd_bus_call_async(
                bus, nil, message, { reply, userdata, _ in Loop.callReplied(reply, userdata) },
                Unmanaged.passUnretained(pending).toOpaque(), timeoutMicroseconds)
            guard status >= 0 else {
                return continuation.resume(
                    returning: .failure(
                        .system(operation: "sd_bus_call_async \(operation)", target: destination, errno: Errno(-status))))
            }
            pendingCalls[pending.id] = pending
        }

        private static func callReplied(_ reply: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) -> Int32 {
            guard let reply, let userdata else { return 0 }
            let pending = Unmanaged<PendingCall>.fromOpaque(userdata).takeUnretainedValue()
            guard pending.loop.pendingCalls.removeValue(forKey: pending.id) != nil else { return 0 }
            if sd_bus_message_is_method_error(reply, nil) > 0 {
                let error = sd_bus_message_get_error(reply)
                pending.continuation.resume(
                    returning: .failure(
                        .remote(
                            operation: pending.operation, target: pending.destination,
                            name: string(error?.pointee.name), message: string(error?.pointee.message))))
            } else {
                do throws(BusError) {
                    pending.continuation.resume(returning: .success(try readAll(reply, operation: pending.operation)))
                } catch {
                    pending.continuation.resume(returning: .failure(error))
                }
            }
            return 0
        }

        // MARK: values in and out of messages (the *_basic and container calls)

        private static func type(_ scalar: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: scalar)) }

        private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
            pointer.map { String(cString: $0) } ?? ""
        }

        static func append(_ value: BusValue, to message: OpaquePointer, operation: String) throws(BusError) {
            func check(_ status: Int32, _ call: String) throws(BusError) {
                if status < 0 { throw .system(operation: call, target: operation, errno: Errno(-status)) }
            }
            func basic<T: BitwiseCopyable>(_ code: Unicode.Scalar, _ raw: T) throws(BusError) {
                var copy = raw
                try check(sd_bus_message_append_basic(message, type(code), &copy), "sd_bus_message_append_basic")
            }
            func text(_ code: Unicode.Scalar, _ raw: String) throws(BusError) {
                let status = raw.withCString { sd_bus_message_append_basic(message, type(code), $0) }
                try check(status, "sd_bus_message_append_basic")
            }
            func container(_ code: Unicode.Scalar, _ contents: String, _ values: [BusValue]) throws(BusError) {
                try check(sd_bus_message_open_container(message, type(code), contents), "sd_bus_message_open_container")
                for inner in values { try append(inner, to: message, operation: operation) }
                try check(sd_bus_message_close_container(message), "sd_bus_message_close_container")
            }
            switch value {
            case .bool(let v): try basic("b", Int32(v ? 1 : 0))
            case .byte(let v): try basic("y", v)
            case .int16(let v): try basic("n", v)
            case .uint16(let v): try basic("q", v)
            case .int32(let v): try basic("i", v)
            case .uint32(let v): try basic("u", v)
            case .int64(let v): try basic("x", v)
            case .uint64(let v): try basic("t", v)
            case .double(let v): try basic("d", v)
            case .string(let v): try text("s", v)
            case .objectPath(let v): try text("o", v)
            case .signature(let v): try text("g", v)
            case .unixFD(let v): try basic("h", v)
            case .array(let element, let values): try container("a", element, values)
            case .structure(let fields):
                try container("r", String(value.signature.dropFirst().dropLast()), fields)
            case .dictEntry(let key, let inner):
                try container("e", key.signature + inner.signature, [key, inner])
            case .variant(let inner): try container("v", inner.signature, [inner])
            }
        }

        /// Every value left at this level of `message` (the whole body, or a container's rest).
        static func readAll(_ message: OpaquePointer, operation: String) throws(BusError) -> [BusValue] {
            var values: [BusValue] = []
            while true {
                var code: CChar = 0
                var contents: UnsafePointer<CChar>?
                let status = sd_bus_message_peek_type(message, &code, &contents)
                if status < 0 {
                    throw .system(operation: "sd_bus_message_peek_type", target: operation, errno: Errno(-status))
                }
                if status == 0 { return values }
                values.append(try readOne(message, code: code, contents: contents, operation: operation))
            }
        }

        private static func readOne(
            _ message: OpaquePointer, code: CChar, contents: UnsafePointer<CChar>?, operation: String
        ) throws(BusError) -> BusValue {
            func check(_ status: Int32, _ call: String) throws(BusError) {
                if status < 0 { throw .system(operation: call, target: operation, errno: Errno(-status)) }
            }
            func basic<T: BitwiseCopyable>(_ initial: T) throws(BusError) -> T {
                var value = initial
                try check(sd_bus_message_read_basic(message, code, &value), "sd_bus_message_read_basic")
                return value
            }
            func text() throws(BusError) -> String {
                var pointer: UnsafePointer<CChar>?
                try check(sd_bus_message_read_basic(message, code, &pointer), "sd_bus_message_read_basic")
                return string(pointer)
            }
            func container() throws(BusError) -> [BusValue] {
                try check(sd_bus_message_enter_container(message, code, contents), "sd_bus_message_enter_container")
                let values = try readAll(message, operation: operation)
                try check(sd_bus_message_exit_container(message), "sd_bus_message_exit_container")
                return values
            }
            switch UnicodeScalar(UInt8(bitPattern: code)) {
            case "b": return .bool(try basic(Int32(0)) != 0)
            case "y": return .byte(try basic(UInt8(0)))
            case "n": return .int16(try basic(Int16(0)))
            case "q": return .uint16(try basic(UInt16(0)))
            case "i": return .int32(try basic(Int32(0)))
            case "h":
                // The message owns its descriptor and closes it when freed: keep a duplicate.
                let borrowed = try basic(Int32(0))
                let owned = fcntl(borrowed, F_DUPFD_CLOEXEC, 3)
                if owned < 0 { throw .system(operation: "fcntl(F_DUPFD_CLOEXEC)", target: operation, errno: .current) }
                return .unixFD(owned)
            case "u": return .uint32(try basic(UInt32(0)))
            case "x": return .int64(try basic(Int64(0)))
            case "t": return .uint64(try basic(UInt64(0)))
            case "d": return .double(try basic(Double(0)))
            case "s": return .string(try text())
            case "o": return .objectPath(try text())
            case "g": return .signature(try text())
            case "a": return .array(elementSignature: string(contents), try container())
            case "r": return .structure(try container())
            case "e":
                let pair = try container()
                guard pair.count == 2 else { throw .unexpected(operation: operation, detail: "dict entry of \(pair.count)") }
                return .dictEntry(pair[0], pair[1])
            case "v":
                let inner = try container()
                guard inner.count == 1 else { throw .unexpected(operation: operation, detail: "variant of \(inner.count)") }
                return .variant(inner[0])
            default:
                throw .unexpected(operation: operation, detail: "unknown type code \(code)")
            }
        }

        private func send(_ message: OpaquePointer, target: String) throws(BusError) {
            let status = sd_bus_send(bus, message, nil)
            if status < 0 { throw .system(operation: "sd_bus_send", target: target, errno: Errno(-status)) }
        }
    }

    /// An exported interface: its description (getters and handlers) and its vtable slot.
    private final class ExportedObject {
        unowned let loop: Loop
        let interface: BusInterface
        let vtable: UnsafeMutablePointer<sd_bus_vtable>
        var slot: OpaquePointer?

        init(loop: Loop, interface: BusInterface, vtable: UnsafeMutablePointer<sd_bus_vtable>) {
            self.loop = loop
            self.interface = interface
            self.vtable = vtable
        }

        /// Unregisters the vtable, then frees it (sd-bus reads it until the slot is gone).
        func release() {
            sd_bus_slot_unref(slot)
            slot = nil
            joule_sd_bus_vtable_free(vtable)
        }
    }

    /// A call awaiting its reply; the loop's table keeps it alive until the reply callback.
    private final class PendingCall {
        let id: Int
        let operation: String
        let destination: String
        unowned let loop: Loop
        let continuation: Handoff<Result<[BusValue], BusError>>

        init(
            id: Int, operation: String, destination: String, loop: Loop,
            continuation: Handoff<Result<[BusValue], BusError>>
        ) {
            self.id = id
            self.operation = operation
            self.destination = destination
            self.loop = loop
            self.continuation = continuation
        }
    }

    private final class Match {
        let queue: HandoffQueue<BusSignalMessage>
        var slot: OpaquePointer?
        init(queue: HandoffQueue<BusSignalMessage>) { self.queue = queue }
    }
}
