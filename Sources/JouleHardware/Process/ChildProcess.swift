import JouleWire

/// A command `joule run` started: forked into its cgroup and held at a gate until the
/// supervisor has registered it (so nothing it does escapes supervision), then exec'ed.
/// stdin, stdout and stderr are inherited, as with `systemd-run --scope`.
public final class ChildProcess: Sendable {
    /// Why a command did not start. `joule run` exits 127 with the description.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        public let command: String
        public let reason: String
        public var description: String { "\(command): \(reason)" }
    }

    /// How the command ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The status a shell reports: the code, or 128 + the signal.
        public var shellStatus: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "status \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    public let pid: Int32
    public let command: String
    private let gate: Locked<(read: Int32, write: Int32)?>
    private let report: Locked<Int32?>

    /// Forks `command` (argv[0] looked up on `PATH` from `environment`), joining the cgroup
    /// whose `cgroup.procs` file is `cgroupProcs` first when given. The child waits at the
    /// gate until `release()`. With `account`, the child becomes that user (groups, gid, uid)
    /// and changes to `directory` before exec.
    public init(
        command: [String], environment: [String: String], cgroupProcs: String?,
        account: UserAccount? = nil, directory: String? = nil
    ) throws(StartError) {
        guard let name = command.first else { throw StartError(command: "", reason: "no command given") }
        self.command = name
        guard let executable = Syscalls.resolveExecutable(name, path: environment["PATH"]) else {
            throw StartError(command: name, reason: "command not found")
        }
        do throws(HardwareError) {
            let gate = try Syscalls.pipe()
            let started: (pid: Int32, report: Int32)
            do {
                started = try Syscalls.spawn(
                    executable: executable, arguments: command,
                    environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
                    cgroupProcs: cgroupProcs, gate: gate, account: account, directory: directory)
            } catch {
                Syscalls.close(gate.read)
                Syscalls.close(gate.write)
                throw error
            }
            Syscalls.close(gate.read)
            pid = started.pid
            self.gate = Locked((gate.read, gate.write))
            report = Locked(started.report)
        } catch {
            throw StartError(command: name, reason: error.description)
        }
    }

    /// Opens the gate and waits until the command has been exec'ed; throws when exec failed
    /// (the child has then exited 127 and must still be waited for).
    public func release() throws(StartError) {
        if let gate = gate.withLock({ value -> (read: Int32, write: Int32)? in defer { value = nil }; return value }) {
            Syscalls.poke(gate.write)
            Syscalls.close(gate.write)
        }
        guard let fd = report.withLock({ value -> Int32? in defer { value = nil }; return value }) else { return }
        if let failure = Syscalls.readSpawnReport(fd) {
            throw StartError(command: command, reason: failure == Errno.canceled ? "cancelled before it started" : "\(failure)")
        }
    }

    /// Closes the gate without opening it: the child exits 127 without running the command.
    public func abandon() {
        if let gate = gate.withLock({ value -> (read: Int32, write: Int32)? in defer { value = nil }; return value }) {
            Syscalls.close(gate.write)
        }
        if let fd = report.withLock({ value -> Int32? in defer { value = nil }; return value }) { Syscalls.close(fd) }
    }

    /// Waits, on a thread of its own, for the command to end. With `reapOrphans` (joule is
    /// its subreaper) every other child that ends meanwhile is reaped too; never set it in a
    /// process that starts children any other way.
    public func termination(reapOrphans: Bool) async -> Termination {
        let pid = pid
        return await withCheckedContinuation { continuation in
            let wait: @Sendable () -> Void = {
                while true {
                    switch Syscalls.waitForChild(reapOrphans ? -1 : pid) {
                    case .exited(let reaped, let status) where reaped == pid:
                        return continuation.resume(returning: .exited(status))
                    case .signalled(let reaped, let signal) where reaped == pid:
                        return continuation.resume(returning: .signalled(signal))
                    case .none:
                        // Already reaped elsewhere: nothing more can be learnt.
                        return continuation.resume(returning: .exited(127))
                    default:
                        continue
                    }
                }
            }
            do throws(HardwareError) {
                try Syscalls.detachThread(name: "joule-wait", wait)
            } catch {
                // At the thread limit: waiting here holds one executor thread, but the
                // command's end is still collected rather than lost.
                wait()
            }
        }
    }

    /// Blocks the calling thread until the command ends (for callers on a thread of their own).
    public func waitForTermination() -> Termination {
        switch Syscalls.waitForChild(pid) {
        case .exited(_, let status): .exited(status)
        case .signalled(_, let signal): .signalled(signal)
        // Already reaped elsewhere: nothing more can be learnt.
        case .none: .exited(127)
        }
    }

    /// Passes `signal` on to the command (before its termination is collected, its PID is
    /// still its own).
    public func send(_ signal: TerminationSignal) { Syscalls.signalChild(pid, signal.number) }

    /// Makes this process the subreaper of its descendants (see `termination`).
    public static func becomeSubreaper() throws(HardwareError) { try Syscalls.setChildSubreaper() }

    deinit { abandon() }
}
