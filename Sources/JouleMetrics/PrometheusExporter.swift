import JouleWorkloads

/// The daemon's `MetricsExporter`: swift-prometheus for the text, SwiftNIO for `/metrics`.
public struct PrometheusExporter: MetricsExporter {
    public init() {}

    public func exposition(_ sample: MetricsSample) -> String { MetricsExposition.text(sample) }

    public func serve(at address: MetricsAddress, sample: @escaping @Sendable () async -> MetricsSample)
        async throws(MetricsError) -> any MetricsEndpoint
    {
        try await MetricsHTTPServer.start(at: address) { MetricsExposition.text(await sample()) }
    }
}
