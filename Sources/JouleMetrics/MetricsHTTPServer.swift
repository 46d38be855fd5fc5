import JouleWorkloads
import NIOCore
import NIOHTTP1
import NIOPosix

/// `/metrics` over HTTP/1.1 on SwiftNIO, on the event loops the transfers' HTTP client already
/// runs (`MultiThreadedEventLoopGroup.singleton`): no thread of its own. Each connection is a
/// task; a request is answered by rendering then, so an idle endpoint does nothing. `GET` and
/// `HEAD /metrics` only; other paths are 404, other methods 405. A connection silent for 30 s
/// is closed, so a stuck client holds nothing for long.
final class MetricsHTTPServer: MetricsEndpoint {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    let address: MetricsAddress
    private let channel: any Channel
    private let task: Task<Void, Never>

    private init(address: MetricsAddress, channel: any Channel, task: Task<Void, Never>) {
        self.address = address
        self.channel = channel
        self.task = task
    }

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    static let idleTimeout = TimeAmount.seconds(30)

    /// Listens at `address`; `render` gives the exposition text at each scrape.
    static func start(at address: MetricsAddress, render: @escaping @Sendable () async -> String)
        async throws(MetricsError) -> MetricsHTTPServer
    {
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                        try channel.pipeline.syncOperations.addHandler(IdleConnectionCloser())
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw MetricsError(address: address, reason: "\(error)")
        }
        var bound = address
        if let port = server.channel.localAddress?.port { bound.port = port }
        let task = Task { await accept(server, render) }
        return MetricsHTTPServer(address: bound, channel: server.channel, task: task)
    }

    func close() async {
        try? await channel.close()
        // Open keep-alive connections end with their tasks.
        task.cancel()
        await task.value
    }

    private static func accept(_ server: NIOAsyncChannel<Connection, Never>, _ render: @escaping @Sendable () async -> String) async {
        try? await server.executeThenClose { inbound in
            try await withThrowingDiscardingTaskGroup { group in
                for try await connection in inbound {
                    group.addTask { await serve(connection, render) }
                }
            }
        }
    }

    /// Answers the connection's requests in order until the client closes, asks to close, or
    /// the task is cancelled. A request's body, if any, is read and dropped.
    private static func serve(_ connection: Connection, _ render: @escaping @Sendable () async -> String) async {
        try? await connection.executeThenClose { inbound, outbound in
            var request: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let head):
                    request = head
                case .body:
                    continue
                case .end:
                    guard let head = request else { continue }
                    request = nil
                    let (status, body) = await answer(head, render)
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: status == .ok ? contentType : "text/plain; charset=utf-8")
                    headers.add(name: "Content-Length", value: "\(body.utf8.count)")
                    if status == .methodNotAllowed { headers.add(name: "Allow", value: "GET, HEAD") }
                    if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
                    try await outbound.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
                    if head.method != .HEAD { try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body)))) }
                    try await outbound.write(.end(nil))
                    if !head.isKeepAlive { return }
                }
            }
        }
    }

    static func answer(_ head: HTTPRequestHead, _ render: () async -> String) async -> (HTTPResponseStatus, String) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/metrics" else { return (.notFound, "not found: joule serves /metrics\n") }
        guard head.method == .GET || head.method == .HEAD else { return (.methodNotAllowed, "only GET and HEAD\n") }
        return (.ok, await render())
    }
}
