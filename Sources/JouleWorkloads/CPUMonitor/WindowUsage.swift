/// CPU time spent over an observed span.
public struct WindowUsage: Sendable, Hashable {
    public var cpuSeconds: Double
    public var observedSeconds: Double

    public init(cpuSeconds: Double, observedSeconds: Double) {
        self.cpuSeconds = cpuSeconds
        self.observedSeconds = observedSeconds
    }

    /// Average use in percent of one core.
    public var percent: Double { observedSeconds > 0 ? cpuSeconds / observedSeconds * 100 : 0 }
}
