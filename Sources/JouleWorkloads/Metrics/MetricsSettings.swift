/// The config's `metrics:` part: whether the daemon serves `/metrics`, and where.
public struct MetricsSettings: Sendable, Hashable {
    /// Off by default: a listening socket is opt-in.
    public var enabled = false
    public var listen = MetricsAddress.defaultListen

    public init(enabled: Bool = false, listen: MetricsAddress = .defaultListen) {
        self.enabled = enabled
        self.listen = listen
    }
}
