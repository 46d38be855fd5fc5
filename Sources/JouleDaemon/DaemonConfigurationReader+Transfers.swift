import JouleHardware
import JouleWorkloads
import JouleTransferQueue
import Yams

extension DaemonConfigurationReader {
    /// `transfers:`: every duration in seconds, every key the binding name.
    func transfers(_ node: Node) throws(ConfigurationError) -> TransferSettings {
        var settings = TransferSettings()
        if yaml.isEmpty(node) { return settings }
        let durations: [(String, WritableKeyPath<TransferTuning, Duration>, ClosedRange<Double>)] = [
            ("retryInitial", \.retryInitial, 0.01...86_400), ("retryMax", \.retryMax, 0.01...2_592_000),
            ("retryAfterMin", \.retryAfterMin, 0...86_400), ("retryAfterMax", \.retryAfterMax, 0...2_592_000),
            ("throughputWindow", \.throughputWindow, 0.1...86_400),
        ]
        let keys = durations.map(\.0) + [
            "retryJitter", "maxRedirects", "maxAttemptsWithoutProgress", "throughputFloor", "maxConcurrent", "defaultTimeout",
            "meteredInterfaces",
        ]
        for (name, _, value) in try yaml.mapping(node, "transfers", allowed: keys) {
            let path = "transfers.\(name)"
            if let duration = durations.first(where: { $0.0 == name }) {
                settings.tuning[keyPath: duration.1] = .seconds(try yaml.number(value, path, in: duration.2))
                continue
            }
            switch name {
            case "retryJitter": settings.tuning.retryJitter = try yaml.number(value, path, in: 0...0.9)
            case "maxRedirects": settings.tuning.maxRedirects = Int(try yaml.number(value, path, in: 0...20))
            case "maxAttemptsWithoutProgress": settings.tuning.maxAttemptsWithoutProgress = Int(try yaml.number(value, path, in: 1...1000))
            case "throughputFloor": settings.tuning.throughputFloor = Int(try yaml.number(value, path, in: 0...1_073_741_824))
            case "maxConcurrent": settings.maxConcurrent = Int(try yaml.number(value, path, in: 1...64))
            case "defaultTimeout": settings.defaultTimeout = try yaml.number(value, path, in: 1...31_536_000)
            default:
                if yaml.isEmpty(value) { continue }
                for (interface, keyNode, flag) in try yaml.mapping(value, path, allowed: nil) {
                    guard !interface.isEmpty, interface.utf8.count <= 15, !interface.contains("/") else {
                        throw yaml.fail(keyNode, "\(path).\(interface)", "not a network interface name")
                    }
                    settings.meteredInterfaces[interface] = try yaml.bool(flag, "\(path).\(interface)")
                }
            }
        }
        if settings.tuning.retryMax < settings.tuning.retryInitial {
            throw yaml.fail(node, "transfers.retryMax", "must be at least retryInitial")
        }
        if settings.tuning.retryAfterMax < settings.tuning.retryAfterMin {
            throw yaml.fail(node, "transfers.retryAfterMax", "must be at least retryAfterMin")
        }
        return settings
    }
}
