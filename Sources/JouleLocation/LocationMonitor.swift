import JouleEnergy
import JouleHardware

/// Geographic region monitoring: whether the device is inside or outside each region, and
/// when that changes, with the receiver off whenever no region could have been crossed.
public struct MonitorRequest: Sendable, Equatable {
    /// At least one, names distinct.
    public var regions: [CircularRegion]
    /// How each sample ends: the accuracy (default 100 m), the fastest the device moves
    /// (default 30 m/s) and the wait for an accurate fix.
    public var sampling: SamplingRequest

    public init(regions: [CircularRegion], sampling: SamplingRequest = SamplingRequest()) {
        self.regions = regions
        self.sampling = sampling
    }

    /// The margin beyond the radius a fix must lie to be outside, metres: at least 20 m, and
    /// the fix's own accuracy when that is larger, so a fix that may still be inside never
    /// reports an exit (Core Location's hysteresis does the same).
    public static func outsideMarginM(accuracyM: Double) -> Double { max(20, accuracyM) }
}

public enum LocationMonitor {
    /// Runs until the input ends: `.regionState` for each region once a fix decides it, then
    /// `.regionEnter`/`.regionExit` with the fix at each change. Inside is a distance to the
    /// centre ≤ the radius; outside is > radius + max(20 m, accuracy); a fix whose accuracy
    /// exceeds the radius (or is unknown) decides nothing for that region, and one between
    /// the two leaves its state as it was. Every fix counts, accurate or not; the requested
    /// accuracy only says when a sample may end (`SamplingRequest`), after which the receiver
    /// is off for (d − accuracy) / max-speed, d the distance to the nearest region's boundary.
    /// Returns the summary; nil when the source has nothing.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: MonitorRequest, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        var rule = RegionRule(regions: request.regions)
        return await AdaptiveSampling.run(&rule, sampling: request.sampling, receiver: &receiver, emit: emit)
    }
}

/// Each region's state, decided fix by fix.
struct RegionRule: SampledRule {
    let regions: [CircularRegion]
    /// nil until a fix decides; then whether inside.
    private(set) var inside: [Bool?]

    init(regions: [CircularRegion]) {
        self.regions = regions
        inside = Array(repeating: nil, count: regions.count)
    }

    /// Inside, outside, or nil when `fix` decides nothing for `region`.
    static func decide(_ region: CircularRegion, _ fix: LocationFix) -> Bool? {
        guard let accuracy = fix.horizontalAccuracyM, accuracy <= region.radiusM else { return nil }
        let distance = region.distanceM(to: fix)
        if distance <= region.radiusM { return true }
        if distance > region.radiusM + MonitorRequest.outsideMarginM(accuracyM: accuracy) { return false }
        return nil
    }

    mutating func consider(_ fix: LocationFix, emit: (LocationEvent) -> Void) {
        for (index, region) in regions.enumerated() {
            guard let now = Self.decide(region, fix) else { continue }
            switch inside[index] {
            case nil: emit(.regionState(region: region.name, inside: now, fix: fix))
            case let was? where was != now: emit(now ? .regionEnter(region: region.name, fix: fix) : .regionExit(region: region.name, fix: fix))
            default: continue
            }
            inside[index] = now
        }
    }

    var samples: Bool { !regions.isEmpty }

    func boundaryM(from fix: LocationFix) -> Double {
        regions.map { abs($0.distanceM(to: fix) - $0.radiusM) }.min() ?? .infinity
    }
}

extension LocationEvent {
    /// The `monitor --exec` environment for an entry or exit, as the beacon hooks have theirs:
    /// `JOULE_EVENT` (`enter` or `exit`), `JOULE_REGION`, `JOULE_LATITUDE`, `JOULE_LONGITUDE`
    /// (the fix's, in degrees) and `JOULE_TIMESTAMP` (the fix's time, ISO-8601 UTC as in the
    /// JSON). Nil for every other event: a region's first state is not a crossing.
    public var hookEnvironment: HookEnvironment? {
        let kind: String, region: String, fix: LocationFix
        switch self {
        case .regionEnter(let name, let at): (kind, region, fix) = ("enter", name, at)
        case .regionExit(let name, let at): (kind, region, fix) = ("exit", name, at)
        default: return nil
        }
        var environment = HookEnvironment(event: kind, timestamp: UTCTime.text(fix.timeMicros))
        environment.set("region", .string(region))
        environment.set("latitude", .double(fix.latitude))
        environment.set("longitude", .double(fix.longitude))
        return environment
    }
}
