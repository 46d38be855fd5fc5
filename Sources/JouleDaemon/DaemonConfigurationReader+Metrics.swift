import Yams
import JouleWorkloads

extension DaemonConfigurationReader {
    /// `metrics: {enabled: BOOL, listen: "ADDRESS:PORT"}`.
    func metrics(_ node: Node) throws(ConfigurationError) -> MetricsSettings {
        var settings = MetricsSettings()
        if yaml.isEmpty(node) { return settings }
        for (name, _, value) in try yaml.mapping(node, "metrics", allowed: ["enabled", "listen"]) {
            let path = "metrics.\(name)"
            switch name {
            case "enabled":
                settings.enabled = try yaml.bool(value, path)
            default:
                let text = try yaml.string(value, path)
                do throws(MetricsAddress.Invalid) {
                    settings.listen = try MetricsAddress.parse(text)
                } catch {
                    throw yaml.fail(value, path, error.description)
                }
            }
        }
        return settings
    }
}
