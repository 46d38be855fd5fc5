import JouleHardware

/// What the daemon knows of the host's energy at one instant. One value feeds the history
/// store, `/metrics` and `joule export`, so the three never disagree.
public struct EnergySnapshot: Sendable, Hashable {
    /// One RAPL zone's wrap-corrected total since the daemon started measuring it. Monotonic,
    /// so Prometheus can take `rate()` of it; zones overlap (a package contains its core),
    /// so they are never added together.
    public struct Domain: Sendable, Hashable {
        /// `package-0`, `psys`, or a child qualified by its parent: `package-0/core`.
        public var name: String
        public var joules: Double

        public init(name: String, joules: Double) {
            self.name = name
            self.joules = joules
        }
    }

    /// Seconds on the wall clock (Unix time).
    public var timestamp: Double
    /// `rapl`, `battery` or `model`: what `systemWatts` comes from.
    public var source: PowerSource.Kind
    /// The detailed origin, e.g. `rapl:psys`; see `PowerSource.origin`.
    public var origin: String
    /// The host's power over the last interval; nil when nothing measures it (never 0).
    public var systemWatts: Double?
    public var domains: [Domain]
    /// Energy attributed to each systemd unit since the daemon started, in joules. Per unit,
    /// not per pid, so a metric labelled by it stays bounded.
    public var unitJoules: [String: Double]

    public init(
        timestamp: Double, source: PowerSource.Kind, origin: String, systemWatts: Double?,
        domains: [Domain] = [], unitJoules: [String: Double] = [:]
    ) {
        self.timestamp = timestamp
        self.source = source
        self.origin = origin
        self.systemWatts = systemWatts
        self.domains = domains
        self.unitJoules = unitJoules
    }
}
