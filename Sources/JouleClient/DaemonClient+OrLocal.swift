import JouleHardware

extension DaemonClient {
    /// The one place where a client chooses between asking joule daemon and reading locally:
    /// `daemon` with the daemon when one owns `org.joule.Energy1` on the session or system bus
    /// (`find`), else `local`. `daemon` returns nil when the daemon could not answer (having
    /// said so if it should be said), and `local` runs instead; what `daemon` throws is thrown.
    ///
    /// - askingDaemon: false when the caller was asked for something only a local reading can
    ///   give (a fixture root, engines of its own): the daemon is then not looked for.
    /// - following: true when what `daemon` returns goes on reading the daemon after it
    ///   returns (a stream or a task holding the client), so the client is left open for it;
    ///   otherwise it is closed once `daemon` returns. It is always closed before `local` runs
    ///   or an error is thrown.
    public nonisolated(nonsending) static func withDaemonOrLocal<T, Failure: Error>(
        environment: [String: String], askingDaemon: Bool = true, following: Bool = false,
        daemon: (DaemonClient) async throws(Failure) -> T?, local: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        if askingDaemon, let client = await find(environment: environment) {
            let answer: T?
            do {
                answer = try await daemon(client)
            } catch {
                await client.close()
                throw error
            }
            if answer == nil || !following { await client.close() }
            if let answer { return answer }
        }
        return try await local()
    }
}
