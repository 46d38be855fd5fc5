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
        run(command: command, environment: environment, as: nil)
    }

    /// As `run(command:environment:)`, but as `account` when it is not this process's user:
    /// through util-linux's setpriv with the account's uid, gid and groups, and an environment
    /// of its own (PATH, HOME, USER, LOGNAME and `environment`), never the daemon's.
    public static func run(command: String, environment: [String: String], as account: UserAccount?) -> Result<Int32, HardwareError> {
        let process = Process()
        if let account, account.uid != CurrentProcess.effectiveUserID {
            guard let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: { FileSystem.kind(of: $0) == .regular }) else {
                return .failure(HardwareError(operation: "spawn", path: "/usr/bin/setpriv", detail: "setpriv (util-linux) is needed to run a command as uid \(account.uid)"))
            }
            process.executableURL = URL(fileURLWithPath: setpriv)
            let groups = account.groups.isEmpty ? ["--clear-groups"] : ["--groups=" + account.groups.map(String.init).joined(separator: ",")]
            process.arguments = ["--reuid=\(account.uid)", "--regid=\(account.gid)"] + groups + ["--", "/bin/sh", "-c", command]
            process.currentDirectoryURL = URL(fileURLWithPath: FileSystem.kind(of: account.home) == .directory ? account.home : "/")
            process.environment = [
                "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": account.home, "USER": account.name, "LOGNAME": account.name,
            ].merging(environment) { _, new in new }
        } else {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        do {
            try process.run()
        } catch {
            return .failure(HardwareError(operation: "spawn", path: "/bin/sh", detail: "\(error)"))
        }
        process.waitUntilExit()
        return .success(process.terminationStatus)
    }
}
