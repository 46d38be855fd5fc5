import JouleHardware

/// The significant-change service, as Core Location documents it: a coarse fix when the device
/// has moved 500 m, at most once every 5 minutes.
public struct SignificantRequest: Sendable, Equatable {
    /// How far from the last reported fix a fix must lie to be reported, metres (500).
    public var distanceM: Double
    /// The shortest time between two reports, µs (300 s).
    public var intervalMicros: Int64
    /// Accuracy 1 km (fixes less accurate are not used); the 500 m circle around the last
    /// reported fix is the region sampled as `monitor` samples.
    public var sampling: SamplingRequest

    public init(distanceM: Double = 500, intervalMicros: Int64 = 300_000_000, sampling: SamplingRequest = SamplingRequest(accuracyM: 1000)) {
        self.distanceM = distanceM
        self.intervalMicros = intervalMicros
        self.sampling = sampling
    }
}

public enum LocationSignificant {
    /// Runs until the input ends: the first fix as accurate as asked is reported as
    /// `.significantChange`, then each one at least `distanceM` from the last reported and at
    /// least `intervalMicros` after it. The receiver is on until the first report; after it,
    /// off for (d − accuracy) / max-speed, d the distance to the circle around the last report,
    /// and never on before the interval allows a report (waking then gives the fix that
    /// continuous sampling would have reported first).
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: SignificantRequest = SignificantRequest(), policy: LocationPolicy = .normal, receiver: inout R,
        emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        if policy.relaxes, receiver.startTime != nil { emit(.policy(policy)) }
        let request = policy.applied(to: request)
        var rule = SignificantRule(request: request)
        return await AdaptiveSampling.run(&rule, sampling: request.sampling, receiver: &receiver, emit: emit)
    }
}

/// The last fix reported.
struct SignificantRule: SampledRule {
    let request: SignificantRequest
    private(set) var lastReported: LocationFix?

    init(request: SignificantRequest) { self.request = request }

    mutating func consider(_ fix: LocationFix, emit: (LocationEvent) -> Void) {
        guard fix.meetsAccuracy(request.sampling.accuracyM) else { return }
        if let last = lastReported {
            guard fix.timeMicros - last.timeMicros >= request.intervalMicros, Geodesy.distanceM(last, fix) >= request.distanceM else { return }
        }
        lastReported = fix
        emit(.significantChange(fix))
    }

    var samples: Bool { lastReported != nil }

    func boundaryM(from fix: LocationFix) -> Double {
        guard let last = lastReported else { return 0 }
        return abs(Geodesy.distanceM(last, fix) - request.distanceM)
    }

    var quietUntil: Int64? { lastReported.map { $0.timeMicros + request.intervalMicros } }
}
