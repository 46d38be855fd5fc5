import JouleHardware
import JouleEnergy
import JouleWire

/// Visit monitoring (Core Location's `CLVisit`): places where the device stayed a while, with
/// when it came and when it left.
public struct VisitsRequest: Sendable, Equatable {
    /// How far fixes may wander and still be one place, metres (default 100).
    public var radiusM: Double
    /// How long the device must stay for a visit, µs (default 300 s).
    public var minDwellMicros: Int64
    /// Fixes less accurate than `sampling.accuracyM` (default 100 m) are not used; during a
    /// visit the receiver samples as `monitor` does, with the visit's circle as the region.
    public var sampling: SamplingRequest

    public init(radiusM: Double = 100, minDwellMicros: Int64 = 300_000_000, sampling: SamplingRequest = SamplingRequest()) {
        self.radiusM = radiusM
        self.minDwellMicros = minDwellMicros
        self.sampling = sampling
    }
}

/// A place the device stayed: the mean of the fixes that made the visit, the radius it was
/// judged by, the arrival, and the departure once it left.
public struct Visit: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var radiusM: Double
    public var arrivalMicros: Int64
    public var departureMicros: Int64?

    public init(latitude: Double, longitude: Double, radiusM: Double, arrivalMicros: Int64, departureMicros: Int64? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusM = radiusM
        self.arrivalMicros = arrivalMicros
        self.departureMicros = departureMicros
    }
}

public enum LocationVisits {
    /// Runs until the input ends. The anchor is the first fix; a fix farther than the radius
    /// from it becomes the new anchor. The first fix at least min-dwell after the anchor (every
    /// fix since lies within the radius of it, or it would have moved) arrives:
    /// `.visitArrival` with the anchor's time as the arrival and the mean of the fixes from the
    /// anchor to this one as the centre. The first fix beyond radius + max(20 m, its accuracy)
    /// from the centre departs: `.visitDeparture`, the departure being the last fix within the
    /// radius of the centre (the arrival's fix until a later one), and the anchor starts again
    /// from the departing fix. Fixes less accurate than asked take no part. The receiver is on
    /// between visits; during one it samples with the visit's circle as the region.
    @discardableResult
    public static func run<R: LocationReceiver>(
        _ request: VisitsRequest, policy: LocationPolicy = .normal, receiver: inout R, emit: (LocationEvent) -> Void
    ) async -> LocationSummary? {
        if policy.relaxes, receiver.startTime != nil { emit(.policy(policy)) }
        let request = policy.applied(to: request)
        var rule = VisitRule(request: request)
        return await AdaptiveSampling.run(&rule, sampling: request.sampling, receiver: &receiver, emit: emit)
    }
}

/// The anchor, the fixes since it, and the visit under way.
struct VisitRule: SampledRule {
    let request: VisitsRequest
    private var anchor: LocationFix?
    /// Sums of the fixes since the anchor (the anchor included), for the mean.
    private var latitudeSum = 0.0, longitudeSum = 0.0, count = 0
    private(set) var visit: Visit?
    /// During a visit, the last fix within the radius of its centre.
    private var lastWithin: Int64 = 0

    init(request: VisitsRequest) { self.request = request }

    private mutating func restart(at fix: LocationFix) {
        anchor = fix
        (latitudeSum, longitudeSum, count) = (fix.latitude, fix.longitude, 1)
    }

    mutating func consider(_ fix: LocationFix, emit: (LocationEvent) -> Void) {
        guard fix.meetsAccuracy(request.sampling.accuracyM), let accuracy = fix.horizontalAccuracyM else { return }
        if var current = visit {
            let distance = Geodesy.distanceM(current.latitude, current.longitude, fix.latitude, fix.longitude)
            if distance <= request.radiusM {
                lastWithin = fix.timeMicros
            } else if distance > request.radiusM + MonitorRequest.outsideMarginM(accuracyM: accuracy) {
                current.departureMicros = lastWithin
                emit(.visitDeparture(current, fix: fix))
                visit = nil
                restart(at: fix)
            }
            return
        }
        guard let anchor, Geodesy.distanceM(anchor, fix) <= request.radiusM else { return restart(at: fix) }
        latitudeSum += fix.latitude
        longitudeSum += fix.longitude
        count += 1
        guard fix.timeMicros - anchor.timeMicros >= request.minDwellMicros else { return }
        let arrived = Visit(
            latitude: latitudeSum / Double(count), longitude: longitudeSum / Double(count), radiusM: request.radiusM,
            arrivalMicros: anchor.timeMicros)
        visit = arrived
        lastWithin = fix.timeMicros
        emit(.visitArrival(arrived, fix: fix))
    }

    var samples: Bool { visit != nil }

    func boundaryM(from fix: LocationFix) -> Double {
        guard let visit else { return 0 }
        return abs(Geodesy.distanceM(visit.latitude, visit.longitude, fix.latitude, fix.longitude) - visit.radiusM)
    }
}

extension Visit {
    /// `{"latitude","longitude","radiusM","arrival","departure"}`, departure null while the
    /// visit lasts.
    public var jsonObject: JSONObject {
        [
            "latitude": .double(latitude), "longitude": .double(longitude), "radiusM": .double(radiusM),
            "arrival": .string(UTCTime.text(arrivalMicros)), "departure": departureMicros.map { .string(UTCTime.text($0)) } ?? .null,
        ]
    }

    /// `48.858370, 2.294481 (100 m) from 12:00:00 to 12:20:00` (`… since 12:00:00` while it lasts).
    public func text(clock: (Int64) -> String) -> String {
        let place = LocationFix(timeMicros: arrivalMicros, latitude: latitude, longitude: longitude, source: "")
        // The fix's text without its time, accuracy and source: the centre to 6 places.
        let centre = place.text(clock: { _ in "" }).dropFirst().prefix { $0 != "±" }.dropLast()
        let radius = radiusM == radiusM.rounded() && abs(radiusM) < 1e15 ? String(Int64(radiusM)) : String(radiusM)
        let span = departureMicros.map { "from \(clock(arrivalMicros)) to \(clock($0))" } ?? "since \(clock(arrivalMicros))"
        return "\(centre) (\(radius) m) \(span)"
    }
}
