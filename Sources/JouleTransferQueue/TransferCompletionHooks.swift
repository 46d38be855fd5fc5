import JouleHardware

/// Runs each finished transfer's `--on-complete` command, one at a time and in order, as the
/// transfer's owner, on a task of its own so a slow hook never holds up the queue. It runs
/// whether or not the program that added the transfer is still there, as a background
/// session relaunches its app.
final class TransferCompletionHooks: Sendable {
    private struct Job: Sendable {
        var command: String
        var owner: UInt32
        var environment: [String: String]
        var id: String
    }

    private let queue: AsyncStream<Job>.Continuation
    private let worker: Task<Void, Never>

    init(log: @escaping @Sendable (String) -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingNewest(4096))
        queue = continuation
        worker = Task.detached {
            for await job in stream {
                guard let account = UserAccount.lookup(uid: job.owner) else {
                    log("transfers: \(job.id): --on-complete not run: uid \(job.owner) has no passwd entry")
                    continue
                }
                switch HookRunner.run(command: job.command, environment: job.environment, as: account) {
                case .success(0): break
                case .success(let code): log("transfers: \(job.id): --on-complete exited with status \(code)")
                case .failure(let error): log("transfers: \(job.id): --on-complete could not start: \(error)")
                }
            }
        }
    }

    /// Queues the hook of a finished transfer, if it has one.
    func run(for transfer: Transfer) {
        guard let command = transfer.onComplete else { return }
        queue.yield(Job(command: command, owner: transfer.ownerUID, environment: Self.environment(transfer), id: transfer.id))
    }

    /// The variables the hook sees (binding names).
    static func environment(_ transfer: Transfer) -> [String: String] {
        [
            "JOULE_TRANSFER_ID": transfer.id, "JOULE_TRANSFER_STATE": transfer.state.name,
            "JOULE_TRANSFER_PATH": transfer.destination ?? transfer.uploadSource ?? "",
            "JOULE_TRANSFER_URL": transfer.url,
        ]
    }

    /// Waits for every queued hook.
    func finish() async {
        queue.finish()
        await worker.value
    }
}
