import Yams
import JouleHardware
import JouleWorkloads

extension DaemonConfigurationReader {
    /// `battery: {chargeLimit: {start: 75, end: 80}, optimizedCharging: true}` (`start`
    /// optional), or `chargeLimit: off` for "charge to 100 %, leave no threshold behind". No
    /// `chargeLimit`: the daemon leaves charging alone (unless optimized charging is on).
    func battery(_ node: Node) throws(ConfigurationError) -> (ChargeLimitRequest?, Bool) {
        if yaml.isEmpty(node) { return (nil, false) }
        var limit: ChargeLimitRequest?
        var optimized = false
        for (name, _, value) in try yaml.mapping(node, "battery", allowed: ["chargeLimit", "optimizedCharging"]) {
            if name == "optimizedCharging" {
                optimized = try yaml.bool(value, "battery.optimizedCharging")
            } else {
                limit = try chargeLimit(value, "battery.\(name)")
            }
        }
        return (limit, optimized)
    }

    func chargeLimit(_ node: Node, _ path: String) throws(ConfigurationError) -> ChargeLimitRequest? {
        if yaml.isEmpty(node) { return nil }
        if let scalar = node.scalar {
            // `off` (some YAML readers take it for false): no limit, charge to 100 %.
            guard ["off", "false"].contains(scalar.string) else {
                throw yaml.fail(node, path, "expected {start: START, end: END} or off, found \"\(scalar.string)\"")
            }
            return .off
        }
        var start: Int?, end: Int?
        var endNode: Node?
        for (name, _, value) in try yaml.mapping(node, path, allowed: ["start", "end"]) {
            let keyPath = "\(path).\(name)"
            let number = try yaml.number(value, keyPath, in: 0...100)
            guard number == number.rounded() else { throw yaml.fail(value, keyPath, "expected a whole percentage, found \(YAMLReader.plain(number))") }
            if name == "start" { start = Int(number) } else { end = Int(number); endNode = value }
        }
        guard let end else { throw yaml.fail(node, path, "missing key `end` (the percentage charging stops at)") }
        do throws(ChargeLimitError) {
            return try ChargeLimitRequest(start: start, end: end)
        } catch {
            throw yaml.fail(endNode ?? node, path, error.description)
        }
    }
}
