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

    /// As `run(command:environment:)`, but for `account`, the hook's owner. A root process
    /// never runs it as root on another user's behalf: the child takes the owner's groups, gid
    /// and uid before exec (`ChildProcess` with an account; posix_spawn cannot change users)
    /// and starts in the owner's home. As root the environment is clean: the `JOULE_*`
    /// variables of `environment` plus PATH, HOME, USER, LOGNAME and SHELL of the owner, never
    /// the daemon's; and a hook script (the command's first word) that anyone but root and the
    /// owner could change is refused, with the reason (`FileTrust`). A non-root process (the
    /// session daemon) runs hooks as itself, with its own environment.
    public static func run(command: String, environment: [String: String], as account: UserAccount?) -> Result<Int32, HardwareError> {
        let asRoot = CurrentProcess.isRoot
        guard let account, asRoot else { return start(["/bin/sh", "-c", command], environment: inherited(environment)) }
        if let script = script(of: command), let problem = FileTrust.problem(with: script, owner: account.uid) {
            return .failure(HardwareError(operation: "exec", path: script, detail: "refused: \(problem)"))
        }
        return start(
            ["/bin/sh", "-c", command], environment: clean(environment, for: account),
            account: account.uid == CurrentProcess.effectiveUserID ? nil : account, directory: account.home)
    }

    /// What a hook as root sees: the JOULE_* variables and the owner's basics, nothing else.
    static func clean(_ environment: [String: String], for account: UserAccount) -> [String: String] {
        environment.filter { $0.key.hasPrefix("JOULE_") }.merging([
            "PATH": cleanPath, "HOME": account.home, "USER": account.name, "LOGNAME": account.name, "SHELL": account.shell,
        ]) { _, own in own }
    }

    static let cleanPath = "/usr/local/bin:/usr/bin:/bin"

    private static func inherited(_ environment: [String: String]) -> [String: String] {
        CurrentProcess.environment().merging(environment) { _, new in new }
    }

    /// The file a command runs first (its first word, looked up on the clean PATH), when it
    /// is one; shell words with quotes or expansions are left to the shell.
    static func script(of command: String) -> String? {
        guard let first = command.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.map(String.init),
              !first.contains(where: { "'\"$`\\;|&<>(){}*?[]~=".contains($0) })
        else { return nil }
        return Syscalls.resolveExecutable(first, path: cleanPath)
    }

    /// Forks, execs and waits for `argv`; its exit status, or why it could not start.
    private static func start(
        _ argv: [String], environment: [String: String], account: UserAccount? = nil, directory: String? = nil
    ) -> Result<Int32, HardwareError> {
        do throws(ChildProcess.StartError) {
            let child = try ChildProcess(
                command: argv, environment: environment, cgroupProcs: nil, account: account, directory: directory)
            do throws(ChildProcess.StartError) {
                try child.release()
            } catch {
                _ = child.waitForTermination()
                throw error
            }
            return .success(child.waitForTermination().shellStatus)
        } catch {
            return .failure(HardwareError(operation: "spawn", path: argv[0], detail: error.reason))
        }
    }
}
