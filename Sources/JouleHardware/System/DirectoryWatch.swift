import Synchronization

/// Directories created or removed under watched directories, as one coalesced signal: the
/// daemon rescans the users' `app.slice` cgroups when a desktop app's scope appears or goes
/// (cgroupfs reports both through inotify), and sleeps in the kernel otherwise. Its thread
/// blocks in poll(2) on the inotify descriptor and a wake pipe; `stop` ends it.
public final class DirectoryWatch: Sendable {
    /// One element per batch of changes (several changes before the consumer looks are one).
    public let changes: AsyncStream<Void>

    private struct State {
        var stopped = false
        var watches: [Int32: String] = [:]
    }

    /// Shared with the thread (a Mutex cannot be captured itself).
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let fd: Int32
    private let wake: (read: Int32, write: Int32)
    private let shared = Shared()

    public init() throws(HardwareError) {
        let fd = try Syscalls.inotifyOpen()
        let wake: (read: Int32, write: Int32)
        do {
            wake = try Syscalls.wakePipe()
        } catch {
            Syscalls.close(fd)
            throw error
        }
        self.fd = fd
        self.wake = wake
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.changes = changes
        let shared = self.shared
        do {
            try Syscalls.detachThread(name: "joule-dirwatch") {
                while true {
                    let ready = Syscalls.pollReadable([fd, wake.read], timeout: -1)
                    if ready.contains(1) {
                        Syscalls.drainWake(wake.read)
                        if shared.state.withLock({ $0.stopped }) { break }
                    }
                    guard ready.contains(0) else { continue }
                    let events = Syscalls.inotifyRead(fd)
                    shared.state.withLock { state in
                        for event in events where event.gone { state.watches[event.wd] = nil }
                    }
                    if !events.isEmpty { continuation.yield() }
                }
                continuation.finish()
                Syscalls.close(fd)
                Syscalls.close(wake.read)
                Syscalls.close(wake.write)
            }
        } catch {
            Syscalls.close(fd)
            Syscalls.close(wake.read)
            Syscalls.close(wake.write)
            throw error
        }
    }

    /// Watches `path` for directories created or removed in it (again for a path already
    /// watched is nothing). Throws naming the path when it cannot be watched (gone, not a
    /// directory, no permission).
    public func watch(_ path: String) throws(HardwareError) {
        try shared.state.withLock { state throws(HardwareError) in
            guard !state.stopped, !state.watches.values.contains(path) else { return }
            let wd = try Syscalls.inotifyWatch(fd, path)
            state.watches[wd] = path
        }
    }

    /// The directories watched now (a removed one drops out).
    public var watched: Set<String> { shared.state.withLock { Set($0.watches.values) } }

    /// Ends the thread and the stream; idempotent.
    public func stop() {
        let first = shared.state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { Syscalls.poke(wake.write) }
    }

    deinit { stop() }
}
