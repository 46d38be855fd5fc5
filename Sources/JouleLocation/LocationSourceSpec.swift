/// `--source`: where fixes come from. Parsed here so the CLI and the Swift API agree.
public enum LocationSourceSpec: Sendable, Hashable, CustomStringConvertible {
    /// gpsd when its socket answers, else GeoClue when its name has an owner.
    case auto
    /// gpsd's JSON socket, localhost:2947 unless `--gpsd HOST:PORT` says otherwise.
    case gpsd
    /// GeoClue2 on the system bus.
    case geoclue
    /// A recorded `gpspipe -w` stream, on the records' own time.
    case replay(path: String)
    /// One position that does not move; accuracy nil when not given.
    case fixed(latitude: Double, longitude: Double, accuracyM: Double?)

    public struct SpecError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ text: String) -> Result<LocationSourceSpec, SpecError> {
        let usage = "--source must be auto, gpsd, geoclue, replay:FILE or fixed:LAT,LON[,ACCURACY], not '\(text)'"
        switch text {
        case "auto": return .success(.auto)
        case "gpsd": return .success(.gpsd)
        case "geoclue": return .success(.geoclue)
        default: break
        }
        if text.hasPrefix("replay:") {
            let path = String(text.dropFirst("replay:".count))
            guard !path.isEmpty else { return .failure(SpecError(description: "--source replay:FILE needs a file")) }
            return .success(.replay(path: path))
        }
        guard text.hasPrefix("fixed:") else { return .failure(SpecError(description: usage)) }
        let parts = text.dropFirst("fixed:".count).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else {
            return .failure(SpecError(description: "--source fixed:LAT,LON[,ACCURACY] needs 2 or 3 numbers, not '\(text)'"))
        }
        let numbers = parts.map { Double(String($0)) }
        guard let latitude = numbers[0], latitude.isFinite, abs(latitude) <= 90 else {
            return .failure(SpecError(description: "--source \(text): latitude must be a number in -90...90, not '\(parts[0])'"))
        }
        guard let longitude = numbers[1], longitude.isFinite, abs(longitude) <= 180 else {
            return .failure(SpecError(description: "--source \(text): longitude must be a number in -180...180, not '\(parts[1])'"))
        }
        var accuracy: Double?
        if parts.count == 3 {
            guard let value = numbers[2], value.isFinite, value > 0 else {
                return .failure(SpecError(description: "--source \(text): accuracy must be a number of metres above 0, not '\(parts[2])'"))
            }
            accuracy = value
        }
        return .success(.fixed(latitude: latitude, longitude: longitude, accuracyM: accuracy))
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .gpsd: "gpsd"
        case .geoclue: "geoclue"
        case .replay(let path): "replay:\(path)"
        case .fixed(let latitude, let longitude, let accuracy):
            "fixed:\(latitude),\(longitude)" + (accuracy.map { ",\($0)" } ?? "")
        }
    }
}
