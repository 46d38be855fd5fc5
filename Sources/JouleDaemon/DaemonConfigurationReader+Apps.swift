import Yams
import JouleHardware
import JouleWorkloads
import JouleApps

extension DaemonConfigurationReader {
    /// `apps: [{id: org.mozilla.firefox, grace: 10, backgroundBudget: 30, cpuLimit: 50,
    /// suspend: true}]`: desktop apps managed by their scopes. Times in seconds (0 to 86400),
    /// `cpuLimit` a percentage of one core above 0; each id once.
    func apps(_ node: Node) throws(ConfigurationError) -> [DesktopAppRule] {
        if yaml.isEmpty(node) { return [] }
        var rules: [DesktopAppRule] = []
        for (index, item) in try sequence(node, "apps").enumerated() {
            let path = "apps[\(index)]"
            var id: String?
            var configuration = AppLifecycleMachine.Configuration()
            for (name, _, value) in try yaml.mapping(item, path, allowed: ["id", "grace", "backgroundBudget", "cpuLimit", "suspend"]) {
                let key = "\(path).\(name)"
                switch name {
                case "id":
                    let text = try yaml.string(value, key)
                    // The application ID as the desktop file names it (reverse DNS or a plain name).
                    guard text.utf8.count <= 255, !text.contains("/"), !text.contains(where: \.isWhitespace) else {
                        throw yaml.fail(value, key, "expected an application ID such as org.mozilla.firefox, found \"\(text)\"")
                    }
                    guard !rules.contains(where: { $0.id == text }) else { throw yaml.fail(value, key, "\(text) is listed twice") }
                    id = text
                case "grace": configuration.grace = .seconds(try yaml.number(value, key, in: 0...86_400))
                case "backgroundBudget": configuration.backgroundBudget = .seconds(try yaml.number(value, key, in: 0...86_400))
                case "cpuLimit":
                    let percent = try yaml.number(value, key, in: 0...100_000)
                    guard percent > 0 else { throw yaml.fail(value, key, "must be above 0 (a percentage of one core)") }
                    configuration.cpuLimitPercent = percent
                default: configuration.suspends = try yaml.bool(value, key)
                }
            }
            guard let id else { throw yaml.fail(item, path, "missing key `id` (the app's application ID, e.g. org.mozilla.firefox)") }
            rules.append(DesktopAppRule(id: id, configuration: configuration))
        }
        return rules
    }
}
