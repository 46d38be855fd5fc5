import JouleHardware

/// A geographic region for `monitor`: a circle on the Earth's surface, as Core Location's
/// `CLCircularRegion`. Written on the command line (and in the Swift API's examples) as
/// `NAME=LAT,LON,RADIUS_M`.
public struct CircularRegion: Sendable, Hashable {
    /// How events and hooks name the region (`JOULE_REGION`).
    public var name: String
    /// The centre, degrees (WGS 84).
    public var latitude: Double
    public var longitude: Double
    /// Metres; above 0.
    public var radiusM: Double

    /// A region from values already checked by the caller (the Swift API); `init(spec:)` checks
    /// text.
    public init(name: String, latitude: Double, longitude: Double, radiusM: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.radiusM = radiusM
    }

    /// Why a `--region` cannot be used, naming the spec and what is wrong in it.
    public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
        public var spec: String
        public var reason: String
        public init(spec: String, reason: String) {
            self.spec = spec
            self.reason = reason
        }
        public var description: String { "--region \(spec): \(reason) (expected NAME=LAT,LON,RADIUS_M, e.g. home=52.52,13.405,150)" }
    }

    /// `NAME=LAT,LON,RADIUS_M`: a name without `=`, a latitude in −90…90, a longitude in
    /// −180…180 and a radius in metres above 0 and at most half the Earth's circumference
    /// (a larger circle covers the whole sphere). Numbers are decimal (no nan, no inf).
    public init(spec: String) throws(SpecError) {
        guard let equals = spec.firstIndex(of: "=") else { throw SpecError(spec: spec, reason: "no NAME= before the numbers") }
        let name = String(spec[..<equals])
        guard !name.allSatisfy(\.isWhitespace) else { throw SpecError(spec: spec, reason: "empty name") }
        let parts = spec[spec.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw SpecError(spec: spec, reason: "\(parts.count) number\(parts.count == 1 ? "" : "s") after the name, not 3")
        }
        func number(_ index: Int, _ what: String, _ valid: (Double) -> Bool, _ range: String) throws(SpecError) -> Double {
            let text = parts[index].trimmingSpaces
            guard let value = Double(text), value.isFinite, valid(value) else {
                throw SpecError(spec: spec, reason: "\(what) must be \(range), not '\(parts[index])'")
            }
            return value
        }
        latitude = try number(0, "latitude", { abs($0) <= 90 }, "a number in -90...90")
        longitude = try number(1, "longitude", { abs($0) <= 180 }, "a number in -180...180")
        radiusM = try number(2, "radius", { $0 > 0 && $0 <= Self.maximumRadiusM }, "a number of metres above 0 (at most 20015087)")
        self.name = name
    }

    /// Half the mean Earth's circumference, metres: every point is within it of any centre.
    public static let maximumRadiusM = (Geodesy.earthRadiusM * Double.pi).rounded(.down)

    /// The regions of several specs, in order: the first bad spec's error, or a name used twice.
    public static func distinct(_ parsed: [(spec: String, region: Result<CircularRegion, SpecError>)]) throws(SpecError) -> [CircularRegion] {
        var regions: [CircularRegion] = []
        for (spec, result) in parsed {
            let region = try result.get()
            guard !regions.contains(where: { $0.name == region.name }) else {
                throw SpecError(spec: spec, reason: "region name '\(region.name)' is used twice")
            }
            regions.append(region)
        }
        return regions
    }

    /// `distinct` on text.
    public static func parse(_ specs: [String]) throws(SpecError) -> [CircularRegion] {
        try distinct(specs.map { spec in (spec, Result { () throws(SpecError) in try CircularRegion(spec: spec) }) })
    }

    /// Metres from the centre to `fix`.
    public func distanceM(to fix: LocationFix) -> Double {
        Geodesy.distanceM(latitude, longitude, fix.latitude, fix.longitude)
    }
}

extension Substring {
    /// Without leading and trailing spaces (a region pasted as `home=52.5, 13.4, 150`).
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
