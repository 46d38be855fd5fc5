import JouleHardware
import JouleLocation
import JouleWorkloads
import Yams

extension DaemonConfigurationReader {
    /// `location:`: `source`, `gpsd`, `accuracy`, `maxSpeed`.
    func location(_ node: Node) throws(ConfigurationError) -> LocationSettings {
        var settings = LocationSettings()
        if yaml.isEmpty(node) { return settings }
        for (name, _, value) in try yaml.mapping(node, "location", allowed: ["source", "gpsd", "accuracy", "maxSpeed"]) {
            let path = "location.\(name)"
            switch name {
            case "source":
                let text = try yaml.string(value, path)
                switch LocationSourceSpec.parse(text) {
                case .success(.replay): throw yaml.fail(value, path, "a replay runs on its own time, not the daemon's: use auto, gpsd, geoclue or fixed:LAT,LON[,ACCURACY]")
                case .success(let spec): settings.source = spec
                case .failure(let error): throw yaml.fail(value, path, error.description)
                }
            case "gpsd":
                let text = try yaml.string(value, path)
                switch GPSDAddress.parse(text) {
                case .success(let address): settings.gpsd = address
                case .failure(let error): throw yaml.fail(value, path, error.description)
                }
            case "accuracy": settings.accuracyM = try yaml.number(value, path, in: 1...1_000_000)
            default: settings.maxSpeedMps = try yaml.number(value, path, in: 0.1...1000)
            }
        }
        return settings
    }

    /// `regions:`: a list of `{region: NAME=LAT,LON,RADIUS_M, exec: CMD}`, names distinct.
    func regions(_ node: Node) throws(ConfigurationError) -> [ConfiguredRegion] {
        if yaml.isEmpty(node) { return [] }
        var out: [ConfiguredRegion] = []
        for (index, item) in try sequence(node, "regions").enumerated() {
            let path = "regions[\(index)]"
            var region: CircularRegion?
            var exec: String?
            for (name, _, value) in try yaml.mapping(item, path, allowed: ["region", "exec"]) {
                if name == "exec" {
                    exec = try yaml.string(value, "\(path).exec")
                    continue
                }
                let spec = try yaml.string(value, "\(path).region")
                do throws(CircularRegion.SpecError) {
                    region = try CircularRegion(spec: spec)
                } catch {
                    throw yaml.fail(value, "\(path).region", error.description)
                }
            }
            guard let region else { throw yaml.fail(item, "\(path).region", "missing: NAME=LAT,LON,RADIUS_M") }
            if out.contains(where: { $0.region.name == region.name }) {
                throw yaml.fail(item, "\(path).region", "the name \(region.name) is used twice")
            }
            out.append(ConfiguredRegion(region: region, exec: exec))
        }
        return out
    }
}
