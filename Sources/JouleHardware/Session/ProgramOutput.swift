import JouleWire

/// What a short-lived tool said: its exit status and its stdout and stderr together.
public struct ProgramOutput: Sendable, Hashable {
    /// The exit code, or 128 + the signal that killed it.
    public var status: Int32
    public var text: String

    public init(status: Int32, text: String) {
        self.status = status
        self.text = text
    }

    /// Runs `argv` (argv[0] looked up on `environment`'s PATH) on a thread of its own, so no
    /// cooperative thread blocks in waitpid; throws when it cannot start (ENOENT: not installed).
    public static func run(_ argv: [String], environment: [String: String]) async throws(HardwareError) -> ProgramOutput {
        guard let name = argv.first else { throw HardwareError(operation: "spawn", path: "", detail: "no command given") }
        guard let executable = Syscalls.resolveExecutable(name, path: environment["PATH"]) else {
            throw HardwareError(operation: "spawn", path: name, errno: .noEntry, detail: "command not found")
        }
        let flat = environment.map { "\($0.key)=\($0.value)" }.sorted()
        let result: Result<ProgramOutput, HardwareError> = await withCheckedContinuation { continuation in
            let body: @Sendable () -> Void = {
                do throws(HardwareError) {
                    let (status, bytes) = try Syscalls.runCapturing(executable: executable, arguments: argv, environment: flat)
                    continuation.resume(returning: .success(ProgramOutput(status: status, text: String(decoding: bytes, as: UTF8.self))))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            do throws(HardwareError) {
                try Syscalls.detachThread(name: "joule-program", body)
            } catch {
                // At the thread limit: run it here rather than lose it.
                body()
            }
        }
        return try result.get()
    }
}
