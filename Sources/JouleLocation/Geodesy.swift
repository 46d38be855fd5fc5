import JouleHardware
import RealModule

/// Distances on the Earth's surface.
public enum Geodesy {
    /// The IUGG mean Earth radius, metres.
    public static let earthRadiusM = 6_371_008.8

    /// The great-circle distance in metres between two points in degrees, by the haversine
    /// formula (accurate to about 0.5 % against the ellipsoid, and stable for short distances).
    public static func distanceM(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let phi1 = lat1 * radians, phi2 = lat2 * radians
        let dPhi = (lat2 - lat1) * radians, dLambda = (lon2 - lon1) * radians
        let sinPhi = Double.sin(dPhi / 2), sinLambda = Double.sin(dLambda / 2)
        let h = sinPhi * sinPhi + Double.cos(phi1) * Double.cos(phi2) * sinLambda * sinLambda
        return 2 * earthRadiusM * Double.asin(Swift.min(1, Swift.max(0, h)).squareRoot())
    }

    /// The distance between two fixes' positions.
    public static func distanceM(_ a: LocationFix, _ b: LocationFix) -> Double {
        distanceM(a.latitude, a.longitude, b.latitude, b.longitude)
    }

    /// The point `metres` north and `eastMetres` east of a point (a flat-Earth step, for
    /// generating tracks; good to well under a metre for steps of a few kilometres).
    public static func offset(latitude: Double, longitude: Double, northM: Double, eastM: Double) -> (latitude: Double, longitude: Double) {
        let degrees = 180 / Double.pi
        let lat = latitude + northM / earthRadiusM * degrees
        let lon = longitude + eastM / (earthRadiusM * Double.cos(latitude / degrees)) * degrees
        return (lat, lon)
    }
}
