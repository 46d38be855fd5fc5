/// How the daemon shows a `MetricsSample` to Prometheus: the text format, and an HTTP
/// endpoint. JouleMetrics implements it with swift-prometheus and SwiftNIO, and `joule`
/// injects it (as it injects the transfers' transport), so this library never builds against NIO.
public protocol MetricsExporter: Sendable {
    /// `sample` in Prometheus's text exposition format (version 0.0.4), with HELP and TYPE lines.
    func exposition(_ sample: MetricsSample) -> String

    /// Serves `GET /metrics` at `address` until the endpoint is closed. `sample` is called at
    /// each scrape and at no other time, so nobody scraping means no work.
    func serve(at address: MetricsAddress, sample: @escaping @Sendable () async -> MetricsSample)
        async throws(MetricsError) -> any MetricsEndpoint
}

/// A running `/metrics` endpoint.
public protocol MetricsEndpoint: Sendable {
    /// Where it listens: the configured address, with the kernel's choice for port 0.
    var address: MetricsAddress { get }
    /// Stops listening and ends open connections.
    func close() async
}
