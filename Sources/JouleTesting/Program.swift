import Foundation
import JouleHardware

/// A program run to its end for a test, waited for on a thread of its own so that no
/// cooperative thread blocks while it runs (on 2 cores the pool has 2 threads).
public enum Program {
    public struct Result: Sendable {
        public var status: Int32
        /// Whether it died of a signal (`status` is then the signal).
        public var signalled: Bool
        /// Whether it outlived the timeout and was interrupted.
        public var timedOut: Bool
        public var stdout: String
        /// Empty when stderr was merged into stdout.
        public var stderr: String

        public init(status: Int32, signalled: Bool = false, timedOut: Bool = false, stdout: String, stderr: String) {
            self.status = status
            self.signalled = signalled
            self.timedOut = timedOut
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs `executable` with `environment` (nil: this process's) in `directory`, feeding
    /// `input` (nil: /dev/null) to stdin, until it exits. After `timeout` seconds (nil: no
    /// bound) it gets SIGINT, and SIGKILL 2 s later. `mergingErrors` sends stderr to the
    /// stdout pipe, interleaved as written.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        input: String? = nil, mergingErrors: Bool = false, timeout: Double? = nil
    ) async throws -> Result {
        try await onThread {
            try runBlocking(
                executable, arguments, environment: environment, directory: directory, input: input,
                mergingErrors: mergingErrors, timeout: timeout)
        }
    }

    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
        mergingErrors: Bool = false, timeout: Double? = nil
    ) async throws -> Result {
        try await run(
            URL(fileURLWithPath: executable), arguments, environment: environment, input: input, mergingErrors: mergingErrors,
            timeout: timeout)
    }

    private static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String]?, directory: URL?, input: String?,
        mergingErrors: Bool, timeout: Double?
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        let stdin = input.map { _ in Pipe() }
        process.standardOutput = out
        process.standardError = mergingErrors ? out : err
        process.standardInput = stdin ?? FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Each pipe on a thread of its own, so neither a full pipe nor a large input stalls it.
        if let input, let stdin {
            Thread {
                try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
                try? stdin.fileHandleForWriting.close()
            }.start()
        }
        let outData = ReadAll(out.fileHandleForReading)
        let errData = mergingErrors ? nil : ReadAll(err.fileHandleForReading)
        var timedOut = false
        if let timeout, exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.interrupt()
            if exited.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
        }
        // Started on this thread, so its run loop wakes this wait (no spinning).
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, timedOut: timedOut,
            stdout: String(decoding: outData.wait(), as: UTF8.self),
            stderr: errData.map { String(decoding: $0.wait(), as: UTF8.self) } ?? "")
    }
}

extension Process {
    /// Waits for the exit and returns the status, polling every 10 ms with Task.sleep. Not
    /// `waitUntilExit` on a thread of its own: that runs the thread's run loop, which spins
    /// when the process was started on another thread.
    @discardableResult
    public func exitStatus() async -> Int32 {
        while isRunning {
            if (try? await Task.sleep(for: .milliseconds(10))) == nil {
                // Cancelled: still wait for the exit, without spinning.
                await Task.detached { try? await Task.sleep(for: .milliseconds(10)) }.value
            }
        }
        return terminationStatus
    }

    /// Sends `signal` unless it has already exited, and waits for the exit (as `exitStatus`):
    /// up to `timeout` seconds, then SIGKILL, so that a process ignoring the signal fails the
    /// test (with status 9) instead of hanging it. Returns `Process.unreaped` when the process
    /// died but Foundation never noticed: it learns of an exit when the child's end of a socket
    /// closes, so a grandchild that inherited that end and outlived the child (a crash
    /// reporter, say) keeps the zombie unreaped for as long as it lives.
    @discardableResult
    public func end(_ signal: Int32 = SIGKILL, timeout: Double = 30) async -> Int32 {
        if isRunning {
            if SignalGateway.isCrash(signal) {
                SignalGateway.signalMainThread(processIdentifier, signal)
            } else {
                kill(processIdentifier, signal)
            }
        }
        if await !eventually(timeout: timeout, every: .milliseconds(10), { !isRunning }) { kill(processIdentifier, SIGKILL) }
        if await !eventually(timeout: 10, every: .milliseconds(10), { !isRunning }), Self.isZombie(processIdentifier) {
            return Self.unreaped
        }
        return await exitStatus()
    }

    /// What `end` returns for a dead child that Foundation has not reaped.
    public static let unreaped: Int32 = -2

    /// Whether `pid` has exited and waits to be reaped (state Z in /proc/PID/stat).
    private static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
