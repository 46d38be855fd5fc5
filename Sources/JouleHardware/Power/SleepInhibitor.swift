import Synchronization

/// A logind delay inhibitor lock for sleep (`Inhibit("sleep", who, why, "delay")`): while it
/// is held, logind waits (up to its `InhibitDelayMaxSec`, 5 s by default) after announcing
/// `PrepareForSleep(true)` before it suspends, so the holder can note what it must. Closing
/// the descriptor releases it; logind then suspends at once. Released on deinit too, so a
/// lock dropped by mistake never holds the machine awake.
public final class SleepInhibitor: Sendable {
    public static let destination = "org.freedesktop.login1"
    public static let path = "/org/freedesktop/login1"
    public static let interface = "org.freedesktop.login1.Manager"

    private let descriptor: Mutex<Int32?>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Takes a delay lock on `bus` (the system bus). `who` and `why` show in
    /// `systemd-inhibit --list`.
    public static func take(on bus: BusConnection, who: String, why: String) async throws(BusError) -> SleepInhibitor {
        let reply = try await bus.call(
            destination: destination, path: path, interface: interface, member: "Inhibit",
            arguments: [.string("sleep"), .string(who), .string(why), .string("delay")])
        guard reply.count == 1, case .unixFD(let fd) = reply[0] else {
            for case .unixFD(let fd) in reply { Syscalls.close(fd) }
            throw .unexpected(operation: "Inhibit", detail: "expected a file descriptor, got \(reply)")
        }
        return SleepInhibitor(descriptor: fd)
    }

    /// Whether the lock is still held.
    public var isHeld: Bool { descriptor.withLock { $0 != nil } }

    /// Releases the lock (idempotent).
    public func release() {
        let fd = descriptor.withLock { held -> Int32? in
            defer { held = nil }
            return held
        }
        if let fd { Syscalls.close(fd) }
    }

    deinit { release() }
}
