import JouleHTTP

/// A transfer client whose connection pool must be closed after its last attempt.
protocol ShutsDown {
    func shutdown() async throws
}

extension HTTPRangeDownloader: ShutsDown {}
extension HTTPUploader: ShutsDown {}

/// Runs `body` with `client`, then shuts the client down whether or not `body` threw.
func using<Client: ShutsDown, T>(_ client: Client, _ body: (Client) async throws -> T) async throws -> T {
    do {
        let value = try await body(client)
        try await client.shutdown()
        return value
    } catch {
        try? await client.shutdown()
        throw error
    }
}
