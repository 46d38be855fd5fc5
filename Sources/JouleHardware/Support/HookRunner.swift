import Foundation

/// Runs a user's `--exec` command for each event, one at a time and in order, on a task of its
/// own so a slow hook never delays the engine. The command runs under `/bin/sh -c` with the
/// event's fields added to the environment; its exit status is reported, never fatal.
public final class HookRunner: Sendable {
    private let command: String
    private let queue: AsyncStream<[String: String]>.Continuation
    private let worker: Task<Void, Never>

    /// - Parameter report: called with a message when a hook cannot start or exits non-zero.
    public init(command: String, report: @escaping @Sendable (String) -> Void) {
        self.command = command
        let (stream, continuation) = AsyncStream.makeStream(of: [String: String].self, bufferingPolicy: .bufferingNewest(1024))
        queue = continuation
        worker = Task.detached {
            for await environment in stream {
                let status = Self.run(command: command, environment: environment)
                switch status {
                case .success(0): break
                case .success(let code): report("--exec exited with status \(code): \(command)")
                case .failure(let error): report("--exec could not start: \(error)")
                }
            }
        }
    }

    /// Queues one run with `environment` added to joule's own.
    public func run(environment: [String: String]) {
        queue.yield(environment)
    }

    /// Waits until every queued hook has finished.
    public func finish() async {
        queue.finish()
        await worker.value
    }

    /// Runs `command` under `/bin/sh -c` with `environment` added to joule's own, waits for it,
    /// and returns its exit status (for callers that must run hooks inline, in event order).
    public static func run(command: String, environment: [String: String]) -> Result<Int32, HardwareError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        do {
            try process.run()
        } catch {
            return .failure(HardwareError(operation: "spawn", path: "/bin/sh", detail: "\(error)"))
        }
        process.waitUntilExit()
        return .success(process.terminationStatus)
    }
}
