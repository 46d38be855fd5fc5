/// The `/metrics` endpoint could not listen.
public struct MetricsError: Error, Sendable, Hashable, CustomStringConvertible {
    public var address: MetricsAddress
    public var reason: String

    public init(address: MetricsAddress, reason: String) {
        self.address = address
        self.reason = reason
    }

    public var description: String { "cannot serve /metrics on \(address): \(reason)" }
}
