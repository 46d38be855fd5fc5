import JouleWire

/// The focus under sway or i3, from their IPC socket (`SWAYSOCK`, `I3SOCK`): subscribed to
/// `window` and `workspace` events, and on each burst of them one GET_TREE whose reply
/// (`I3Tree`) is the new snapshot.
///
/// One connection carries both: replies and events are told apart by the type's high bit, and
/// events that arrive while a GET_TREE is outstanding only ask for one more after it. The
/// socket lives on a thread of its own that sleeps in poll(2) between messages (no timer).
public final class I3IPCFocusSource: DesktopFocusSource {
    public let origin: String
    public let snapshots: AsyncThrowingStream<DesktopSnapshot, any Error>
    private let thread: StoppableThread
    private let pollReturns = WakeupCounter()

    /// How often the thread has woken for the socket: flat while nothing changes.
    public var wakeups: Int { pollReturns.value }

    /// How long the compositor may take to answer SUBSCRIBE before `init` gives up.
    static let subscribeTimeoutMillis: Int64 = 5000

    /// Connects to the socket at `socketPath` and returns once the subscription is confirmed;
    /// throws when the socket cannot be reached or does not answer as sway or i3 would.
    public init(socketPath: String) throws(DesktopFocusError) {
        origin = socketPath
        let started = try DesktopFocusThread.start(
            name: "joule-i3-focus", counter: pollReturns,
            loop: { stopFD, onWake, ready, onSnapshot throws(HardwareError) in
                try Self.run(path: socketPath, stopFD: stopFD, onWake: onWake, ready: ready, onSnapshot: onSnapshot)
            },
            describe: { Self.error($0, path: socketPath) })
        thread = started.thread
        snapshots = started.snapshots
    }

    public func stop() { thread.stop() }

    static func error(_ error: HardwareError, path: String) -> DesktopFocusError {
        .ipc(path: path, reason: DesktopFocusThread.reason(error))
    }

    private static let subscription = Array(#"["window","workspace"]"#.utf8)

    /// The thread's loop; throws `HardwareError`s whose path is the socket.
    private static func run(
        path: String, stopFD: Int32, onWake: () -> Void, ready: () -> Void, onSnapshot: (DesktopSnapshot) -> Void
    ) throws(HardwareError) {
        func failure(_ error: I3IPCError) -> HardwareError {
            HardwareError(operation: "i3-ipc", path: path, detail: error.description)
        }
        let fd = try Syscalls.connectUnixStream(path: path)
        defer { Syscalls.closeStream(fd) }
        func send(_ message: I3IPCMessage) throws(HardwareError) {
            if let error = Syscalls.sendStream(fd, message.encoded) { throw HardwareError(operation: "send", path: path, errno: error) }
        }
        try send(I3IPCMessage(type: I3IPCMessage.subscribe, payload: subscription))
        let subscribeDeadline = Int64(Syscalls.monotonicNanoseconds()) + subscribeTimeoutMillis * 1_000_000
        var reader = I3IPCFrameReader()
        var subscribed = false
        var treeOutstanding = false
        var stale = false
        var last: DesktopSnapshot?
        while true {
            var timeout: Int32 = -1
            if !subscribed {
                let left = (subscribeDeadline - Int64(Syscalls.monotonicNanoseconds())) / 1_000_000
                guard left > 0 else {
                    throw HardwareError(
                        operation: "i3-ipc", path: path,
                        detail: "no reply to SUBSCRIBE within \(subscribeTimeoutMillis / 1000) s: not sway or i3?")
                }
                timeout = Int32(clamping: left)
            }
            let readable = Syscalls.pollReadable([stopFD, fd], timeout: timeout)
            if readable.contains(0) { return }
            guard readable.contains(1) else { continue }
            onWake()
            var closed = false
            reading: while true {
                switch Syscalls.readStream(fd, limit: 65_536) {
                case .none: break reading
                case .bytes(let bytes): reader.append(bytes)
                case .failed(let error): throw HardwareError(operation: "read", path: path, errno: error)
                case .closed:
                    closed = true
                    break reading
                }
            }
            while true {
                let next: I3IPCMessage?
                do throws(I3IPCError) { next = try reader.next() } catch { throw failure(error) }
                guard let message = next else { break }
                if message.isEvent {
                    stale = true
                } else if message.type == I3IPCMessage.subscribe, !subscribed {
                    let reply = try? JSONParser.parse(message.payload)
                    guard reply?["success"]?.boolValue == true else {
                        throw failure(.refused(String(decoding: message.payload.prefix(200), as: UTF8.self)))
                    }
                    subscribed = true
                    ready()
                    stale = true
                } else if message.type == I3IPCMessage.getTree {
                    treeOutstanding = false
                    let snapshot: DesktopSnapshot
                    do throws(I3IPCError) { snapshot = try I3Tree.snapshot(from: message.payload) } catch { throw failure(error) }
                    if snapshot != last {
                        onSnapshot(snapshot)
                        last = snapshot
                    }
                }
            }
            // What came before the end is handled first: a last tree, or the error it holds.
            if closed {
                do throws(I3IPCError) { try reader.finish() } catch { throw failure(error) }
                throw HardwareError(operation: "read", path: path, detail: "connection closed (the compositor exited?)")
            }
            if stale, subscribed, !treeOutstanding {
                try send(I3IPCMessage(type: I3IPCMessage.getTree, payload: []))
                treeOutstanding = true
                stale = false
            }
        }
    }
}
