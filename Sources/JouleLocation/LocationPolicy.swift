import JouleWire
import JouleEnergy

/// The power and thermal state a location session runs under (seed 002: stop or reduce
/// location updates when energy is short). In Low Power Mode, or at thermal state serious or
/// worse, `watch`, `visits` and `significant` relax: the requested accuracy becomes at least
/// 1 km (coarser fixes are accepted), and the deferral and probe intervals double. `once`
/// and `monitor` keep their requests: a one-shot answer and a region crossing are what the
/// user asked for, and both already keep the receiver off when they can.
///
/// The engines take it as a value, read once when the session starts (the CLI: from the
/// daemon when it runs, else `--root` or the live system), so replays test it directly; a
/// change during the session does not alter it.
public struct LocationPolicy: Sendable, Hashable {
    public var lowPowerMode: Bool
    public var thermalState: ThermalState

    public init(lowPowerMode: Bool = false, thermalState: ThermalState = .nominal) {
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
    }

    /// Low Power Mode off, thermal state nominal: requests as given.
    public static let normal = LocationPolicy()

    /// The accuracy a relaxed request asks for at least, metres.
    public static let relaxedAccuracyM = 1000.0

    /// Whether requests relax (and the session prints `.policy`).
    public var relaxes: Bool { lowPowerMode || thermalState >= .serious }

    /// `request` with the accuracy at least 1 km and the deferral distance and time and the
    /// probe interval doubled, when the policy relaxes; as given otherwise.
    public func applied(to request: WatchRequest) -> WatchRequest {
        guard relaxes else { return request }
        var relaxed = request
        relaxed.accuracyM = max(request.accuracyM, Self.relaxedAccuracyM)
        relaxed.deferDistanceM = request.deferDistanceM.map { $0 * 2 }
        relaxed.deferTimeMicros = request.deferTimeMicros.map { $0.multipliedReportingOverflow(by: 2).overflow ? .max : $0 * 2 }
        relaxed.probeMicros = request.probeMicros.multipliedReportingOverflow(by: 2).overflow ? .max : request.probeMicros * 2
        return relaxed
    }

    /// `request` with the accuracy at least 1 km, when the policy relaxes.
    public func applied(to request: VisitsRequest) -> VisitsRequest {
        guard relaxes else { return request }
        var relaxed = request
        relaxed.sampling.accuracyM = max(request.sampling.accuracyM, Self.relaxedAccuracyM)
        return relaxed
    }

    /// `request` with the accuracy at least 1 km (it asks for 1 km already), when the policy
    /// relaxes.
    public func applied(to request: SignificantRequest) -> SignificantRequest {
        guard relaxes else { return request }
        var relaxed = request
        relaxed.sampling.accuracyM = max(request.sampling.accuracyM, Self.relaxedAccuracyM)
        return relaxed
    }
}

/// The policy as it changes during a live session (the CLI follows joule daemon's signals into
/// it); `watch` reads it at every fix.
public final class LocationPolicyFeed: Sendable {
    private let value: Locked<LocationPolicy>

    public init(_ initial: LocationPolicy) { value = Locked(initial) }

    public var current: LocationPolicy { value.withLock { $0 } }

    public func set(_ policy: LocationPolicy) { value.withLock { $0 = policy } }
}

extension LocationWatch {
    /// `run` under the policy in `feed`, followed fix by fix: `.policy` first when it relaxes,
    /// and again whenever it changes.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: WatchRequest, policy feed: LocationPolicyFeed, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        if feed.current.relaxes, receiver.startTime != nil { emit(.policy(feed.current)) }
        return await run(request, following: feed, receiver: &receiver, emit: emit)
    }

    /// `run` under a `policy` that does not change: when it relaxes, `.policy` first, then the
    /// relaxed request.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: WatchRequest, policy: LocationPolicy, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        await run(request, policy: LocationPolicyFeed(policy), receiver: &receiver, emit: emit)
    }
}
