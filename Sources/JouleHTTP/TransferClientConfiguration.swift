import AsyncHTTPClient
import NIOCore

/// The AsyncHTTPClient configuration of both transfer clients (downloads and uploads).
enum TransferClientConfiguration {
    static func make(redirects: HTTPClient.Configuration.RedirectConfiguration) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: redirects, timeout: .init(connect: .seconds(30)), decompression: .disabled)
        // The pool would otherwise retry a refused or unreachable connect with its own backoff
        // until the connect timeout, the attempt sitting `running` meanwhile (issue 32): one
        // try per attempt, and the queue's backoff between attempts.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }
}
