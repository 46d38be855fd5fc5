/// A GeoClue2 Location object's properties (`org.freedesktop.GeoClue2.Location`, from
/// Properties.GetAll) as a fix, with GeoClue's conventions for what it does not know:
/// - `Accuracy` is metres; one that is not a finite number above 0 is unknown (nil), never a
///   perfect fix;
/// - `Altitude` is -1.7976931348623157e308 (-DBL_MAX) when unknown;
/// - `Speed` and `Heading` are -1 when unknown;
/// - `Timestamp` `(tt)` is seconds and microseconds since the epoch; absent or zero, the time
///   the fix was received is used.
/// A pure decoder: properties in, a fix or a typed error naming the path out; it never traps.
public enum GeoClueLocation {
    public static let interface = "org.freedesktop.GeoClue2.Location"

    public static func fix(
        properties: [(String, BusValue)], path: String, receivedMicros: Int64, source: String = "geoclue"
    ) throws(GeoClueError) -> LocationFix {
        var values: [String: BusValue] = [:]
        for (name, value) in properties { values[name] = value.unwrapped }
        func number(_ name: String) throws(GeoClueError) -> Double? {
            guard let value = values[name] else { return nil }
            guard let double = value.doubleValue else {
                throw .badLocation(path: path, detail: "\(name) is \(value.signature) \(value), not a double")
            }
            return double
        }
        guard let latitude = try number("Latitude") else { throw .badLocation(path: path, detail: "no Latitude") }
        guard let longitude = try number("Longitude") else { throw .badLocation(path: path, detail: "no Longitude") }
        guard latitude.isFinite, abs(latitude) <= 90 else {
            throw .badLocation(path: path, detail: "Latitude \(latitude) is not in -90...90")
        }
        guard longitude.isFinite, abs(longitude) <= 180 else {
            throw .badLocation(path: path, detail: "Longitude \(longitude) is not in -180...180")
        }
        let accuracy = try number("Accuracy").flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let altitude = try number("Altitude").flatMap { $0.isFinite && $0 > -1e300 ? $0 : nil }
        let speed = try number("Speed").flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let heading = try number("Heading").flatMap { $0.isFinite && $0 >= 0 && $0 <= 360 ? ($0 == 360 ? 0 : $0) : nil }
        let time = try timestamp(values["Timestamp"], path: path) ?? receivedMicros
        return LocationFix(
            timeMicros: time, latitude: latitude, longitude: longitude, horizontalAccuracyM: accuracy, altitudeM: altitude,
            verticalAccuracyM: nil, speedMps: speed, courseDeg: heading, source: source)
    }

    /// `(tt)` seconds and µs as Unix µs; nil when absent or zero (GeoClue had no time).
    static func timestamp(_ value: BusValue?, path: String) throws(GeoClueError) -> Int64? {
        guard let value else { return nil }
        guard case .structure(let fields) = value, fields.count == 2, case .uint64(let seconds) = fields[0],
            case .uint64(let micros) = fields[1]
        else {
            throw .badLocation(path: path, detail: "Timestamp is \(value.signature) \(value), not (tt)")
        }
        if seconds == 0 && micros == 0 { return nil }
        // Beyond year 9999, or µs that are not a fraction of a second: not a time.
        guard seconds < 253_402_300_800, micros < 1_000_000 else {
            throw .badLocation(path: path, detail: "Timestamp (\(seconds), \(micros)) is not a time")
        }
        return Int64(seconds) * 1_000_000 + Int64(micros)
    }
}
