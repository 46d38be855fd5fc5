import JouleHardware
import JouleTransferQueue

/// Deferred transfers for a program, like a background `URLSession`: the daemon performs them
/// out of process, at a power-optimal time, and keeps them across the program's restarts.
/// Every transfer is stamped with the configuration's identifier, and `transfers()` and
/// `events()` see only those.
public final class BackgroundTransferSession: Sendable {
    public let configuration: BackgroundTransferConfiguration
    public let client: TransfersClient

    public init(configuration: BackgroundTransferConfiguration, client: TransfersClient) {
        self.configuration = configuration
        self.client = client
    }

    /// A session on the running daemon, found as `TransfersClient.connect(environment:)` finds
    /// it; `TransfersError.notRunning` without one.
    public static func connect(
        configuration: BackgroundTransferConfiguration, environment: [String: String] = CurrentProcess.environment()
    ) async throws(TransfersError) -> BackgroundTransferSession {
        BackgroundTransferSession(configuration: configuration, client: try await TransfersClient.connect(environment: environment))
    }

    /// Queues a download of `url` into the absolute path `destination`; returns its id.
    public func download(from url: String, to destination: String) async throws(TransfersError) -> String {
        try await add(TransferRequest(url: url, destination: destination))
    }

    /// Queues an upload of the file at the absolute path `path` to `url`; returns its id.
    public func upload(fromFile path: String, to url: String, method: TransferMethod = .put) async throws(TransfersError) -> String {
        try await add(TransferRequest(url: url, upload: path, method: method))
    }

    /// Queues `request` with this session's identifier and defaults (`configuration.stamp`).
    public func add(_ request: TransferRequest) async throws(TransfersError) -> String {
        try await client.add(configuration.stamp(request))
    }

    public func cancel(_ id: String) async throws(TransfersError) { try await client.cancel(id) }

    /// This session's transfers (`ListSession`), oldest first: those added before a restart too.
    public func transfers() async throws(TransfersError) -> [TransferSnapshot] {
        try await client.listSession(configuration.identifier).transfers
    }

    /// The signals about this session's transfers from now on. A signal about an id not seen
    /// before is checked against `ListSession` once: the daemon stores a transfer before it
    /// signals about it, so an id missing there belongs to another session for good.
    public func events() async throws(TransfersError) -> AsyncStream<TransferEvent> {
        let all = try await client.events()
        let (stream, continuation) = AsyncStream.makeStream(of: TransferEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let filter = Task { [self] in
            var mine = Set<String>(), others = Set<String>()
            for await event in all {
                if !mine.contains(event.id) && !others.contains(event.id) {
                    guard let listed = try? await transfers() else { break }
                    mine.formUnion(listed.map(\.id))
                    if !mine.contains(event.id) { others.insert(event.id) }
                }
                if mine.contains(event.id) { continuation.yield(event) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in filter.cancel() }
        return stream
    }
}
