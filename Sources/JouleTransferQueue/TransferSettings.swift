/// The `transfers:` section of the daemon's config. Key names are binding (issue 13), so tests
/// can shrink every duration: the HTTP and retry ones are `tuning`'s fields, the rest here.
public struct TransferSettings: Sendable, Hashable {
    public var tuning = TransferTuning()
    /// Attempts running at once.
    public var maxConcurrent = 4
    /// Seconds from creation to the deadline when a request gives no `timeout` (7 days, as
    /// NSURLSession's `timeoutIntervalForResource`).
    public var defaultTimeout: Double = Transfer.defaultTimeout
    /// The user's word on an interface, over NetworkManager's guess (a phone hotspot it calls
    /// unmetered, a wired link the user pays for).
    public var meteredInterfaces: [String: Bool] = [:]

    public init() {}
}
