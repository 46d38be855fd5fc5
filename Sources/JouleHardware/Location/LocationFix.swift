/// One position fix, as a source reported it. What the source did not give is nil, never 0:
/// an unknown accuracy is not a perfect one.
public struct LocationFix: Sendable, Hashable {
    /// When the fix was taken: Unix time in µs (UTC).
    public var timeMicros: Int64
    /// Degrees, −90…90 (WGS 84).
    public var latitude: Double
    /// Degrees, −180…180 (WGS 84).
    public var longitude: Double
    /// Metres; gpsd's `eph`.
    public var horizontalAccuracyM: Double?
    /// Metres above the WGS 84 ellipsoid (gpsd's `altHAE`, else `alt`); nil on a 2D fix.
    public var altitudeM: Double?
    /// Metres; gpsd's `epv`; nil on a 2D fix.
    public var verticalAccuracyM: Double?
    /// Metres per second over ground.
    public var speedMps: Double?
    /// Degrees from true north, 0…360.
    public var courseDeg: Double?
    /// Where the fix came from: `gpsd`, `replay`, `fixed`.
    public var source: String

    public init(
        timeMicros: Int64, latitude: Double, longitude: Double, horizontalAccuracyM: Double? = nil, altitudeM: Double? = nil,
        verticalAccuracyM: Double? = nil, speedMps: Double? = nil, courseDeg: Double? = nil, source: String
    ) {
        self.timeMicros = timeMicros
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracyM = horizontalAccuracyM
        self.altitudeM = altitudeM
        self.verticalAccuracyM = verticalAccuracyM
        self.speedMps = speedMps
        self.courseDeg = courseDeg
        self.source = source
    }

    /// Whether the fix is at least as accurate as `metres`. An unknown accuracy meets nothing.
    public func meetsAccuracy(_ metres: Double) -> Bool {
        guard let accuracy = horizontalAccuracyM else { return false }
        return accuracy <= metres
    }
}
