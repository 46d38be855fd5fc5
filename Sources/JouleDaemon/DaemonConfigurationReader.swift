import JouleHardware
import JouleEnergy
import JouleWorkloads
import Yams

/// Walks the daemon's composed config, checking every key and value; errors name
/// `file:line:column: key`.
struct DaemonConfigurationReader {
    let yaml: YAMLReader

    static let topLevelKeys = ["lowPowerMode", "enforce", "cpuMonitor", "beacons", "transfers", "apps", "metrics", "battery", "location", "regions"]

    func configuration(_ root: Node) throws(ConfigurationError) -> DaemonConfiguration {
        var result = DaemonConfiguration()
        for (name, _, value) in try yaml.mapping(root, nil, allowed: Self.topLevelKeys) {
            switch name {
            case "lowPowerMode":
                try lowPowerMode(value, into: &result)
            case "enforce":
                if !yaml.isEmpty(value) { result.enforce = try enforce(value) }
            case "cpuMonitor":
                if !yaml.isEmpty(value) { result.cpuMonitor = try sequence(value, name).enumerated().map { (index, item) throws(ConfigurationError) in try cpuWatch(item, "cpuMonitor[\(index)]") } }
            case "beacons":
                if !yaml.isEmpty(value) { result.beacons = try sequence(value, name).enumerated().map { (index, item) throws(ConfigurationError) in try beaconMonitor(item, "beacons[\(index)]") } }
            case "transfers":
                result.transfers = try transfers(value)
            case "metrics":
                result.metrics = try metrics(value)
            case "battery":
                (result.chargeLimit, result.optimizedCharging) = try battery(value)
            case "location":
                result.location = try location(value)
            case "regions":
                result.regions = try regions(value)
            default:
                result.apps = try apps(value)
            }
        }
        return result
    }

    func sequence(_ node: Node, _ key: String) throws(ConfigurationError) -> [Node] {
        guard let sequence = node.sequence else { throw yaml.fail(node, key, "expected a list, found \(yaml.kind(node))") }
        return Array(sequence)
    }

    func lowPowerMode(_ node: Node, into result: inout DaemonConfiguration) throws(ConfigurationError) {
        if yaml.isEmpty(node) { return }
        let keys = ["lowPowerAt", "lowPowerOffAt", "warningLevels", "actuators", "knobs"]
        var offAtNode: Node?
        for (name, _, value) in try yaml.mapping(node, "lowPowerMode", allowed: keys) {
            let path = "lowPowerMode.\(name)"
            switch name {
            case "lowPowerAt":
                result.power.lowPercent = try yaml.number(value, path, in: 0...100)
            case "lowPowerOffAt":
                result.power.restorePercent = try yaml.number(value, path, in: 0...100)
                offAtNode = value
            case "warningLevels":
                let spec = value.sequence.map { $0.compactMap(\.scalar?.string).joined(separator: ",") } ?? (value.scalar?.string ?? "")
                do {
                    let levels = try BatteryWarningThresholds(spec: spec)
                    result.power.warningLowPercent = levels.low
                    result.power.warningCriticalPercent = levels.critical
                    result.power.warningActionPercent = levels.action
                } catch {
                    throw yaml.fail(value, path, error.description)
                }
            case "actuators":
                var actuators: Set<DaemonConfiguration.Actuator> = []
                if !yaml.isEmpty(value) {
                    for item in try sequence(value, path) {
                        let word = try yaml.string(item, path)
                        guard let actuator = DaemonConfiguration.Actuator(rawValue: word) else {
                            throw yaml.fail(item, path, "unknown actuator \"\(word)\" (expected power-profiles-daemon or knobs)")
                        }
                        actuators.insert(actuator)
                    }
                }
                result.actuators = actuators
            default:
                result.knobs = try knobs(value, path)
            }
        }
        if result.power.restorePercent <= result.power.lowPercent {
            throw yaml.fail(offAtNode ?? node, "lowPowerMode.lowPowerOffAt", "must be above lowPowerAt (\(YAMLReader.plain(result.power.lowPercent)))")
        }
    }

    func knobs(_ node: Node, _ path: String) throws(ConfigurationError) -> LowPowerKnobConfiguration {
        var knobs = LowPowerKnobConfiguration()
        if yaml.isEmpty(node) { return knobs }
        let flags: [(String, WritableKeyPath<LowPowerKnobConfiguration, Bool>)] = [
            ("platformProfile", \.platformProfile), ("energyPerformancePreference", \.energyPerformancePreference),
            ("turbo", \.turbo), ("conservativeGovernor", \.conservativeGovernor), ("maxFrequencyCap", \.maxFrequencyCap),
            ("pcieASPM", \.pcieASPM), ("usbAutosuspend", \.usbAutosuspend),
        ]
        let keys = flags.map(\.0) + ["maxFrequencyPercent", "extra"]
        for (name, _, value) in try yaml.mapping(node, path, allowed: keys) {
            let keyPath = "\(path).\(name)"
            if let flag = flags.first(where: { $0.0 == name }) {
                knobs[keyPath: flag.1] = try yaml.bool(value, keyPath)
            } else if name == "maxFrequencyPercent" {
                knobs.maxFrequencyPercent = Int(try yaml.number(value, keyPath, in: 10...100))
            } else if !yaml.isEmpty(value) {
                for (file, keyNode, text) in try yaml.mapping(value, keyPath, allowed: nil) {
                    guard file.hasPrefix("/sys/") || file.hasPrefix("/proc/sys/"), !file.split(separator: "/").contains("..") else {
                        throw yaml.fail(keyNode, "\(keyPath).\(file)", "extra knobs are files under /sys or /proc/sys, without `..`")
                    }
                    guard let scalar = text.scalar else {
                        throw yaml.fail(text, "\(keyPath).\(file)", "expected the value to write, found \(yaml.kind(text))")
                    }
                    knobs.extra.append(ExtraKnob(path: file, value: scalar.string))
                }
            }
        }
        return knobs
    }

    /// `policy: FILE` (relative to the config's directory), or a policy inline.
    func enforce(_ node: Node) throws(ConfigurationError) -> EnforcePolicy {
        if let mapping = node.mapping, mapping.count == 1, let (key, value) = mapping.first, key.scalar?.string == "policy" {
            var file = try yaml.string(value, "enforce.policy")
            if !file.hasPrefix("/"), let slash = yaml.file.lastIndex(of: "/") {
                file = String(yaml.file[...slash]) + file
            }
            do {
                return try EnforcePolicy.load(path: file)
            } catch {
                // Name where the config points at the policy too.
                var located = error
                if located.line == nil { located.message += " (from \(yaml.file):\(value.mark?.line ?? 0): enforce.policy)" }
                throw located
            }
        }
        return try PolicyReader(yaml: YAMLReader(file: yaml.file, keyPrefix: "enforce")).policy(node)
    }

    func cpuWatch(_ node: Node, _ path: String) throws(ConfigurationError) -> DaemonConfiguration.CPUWatch {
        let keys = ["pid", "match", "cgroup", "uid", "limit", "window", "action", "interval", "dryRun", "reports"]
        var limit = 80.0, window = 60.0
        var interval: Double?
        var action = CPUMonitorAction.kill
        var dryRun = false
        var reports: String?
        var selectors = ProcessSelectors()
        for (name, _, value) in try yaml.mapping(node, path, allowed: keys) {
            let keyPath = "\(path).\(name)"
            switch name {
            case "pid":
                for item in yaml.list(value, keyPath) {
                    guard let pid = item.int, pid > 1, pid <= Int(Int32.max) else {
                        throw yaml.fail(item, keyPath, "expected a process ID above 1, found \(yaml.kind(item))")
                    }
                    selectors.pids.insert(Int32(pid))
                }
            case "match":
                for item in yaml.list(value, keyPath) {
                    let pattern = try yaml.string(item, keyPath)
                    do { _ = try Regex(pattern) } catch {
                        throw yaml.fail(item, keyPath, "not a valid regular expression: \(error)")
                    }
                    selectors.patterns.append(pattern)
                }
            case "cgroup":
                for item in yaml.list(value, keyPath) { selectors.cgroups.append(CgroupPath(try yaml.string(item, keyPath)).description) }
            case "uid":
                for item in yaml.list(value, keyPath) {
                    guard let uid = item.int, uid >= 0, uid <= Int(UInt32.max) else {
                        throw yaml.fail(item, keyPath, "expected a user ID, found \(yaml.kind(item))")
                    }
                    selectors.uids.insert(UInt32(uid))
                }
            case "limit": limit = try yaml.number(value, keyPath, in: 0.1...100_000)
            case "window": window = try yaml.number(value, keyPath, in: 0.05...86_400)
            case "interval": interval = try yaml.number(value, keyPath, in: 0.01...86_400)
            case "action":
                let word = try yaml.string(value, keyPath)
                guard let parsed = CPUMonitorAction(rawValue: word) else {
                    throw yaml.fail(value, keyPath, "expected kill, throttle or report, found \"\(word)\"")
                }
                action = parsed
            case "dryRun": dryRun = try yaml.bool(value, keyPath)
            default:
                let directory = try yaml.string(value, keyPath)
                guard directory.hasPrefix("/") else { throw yaml.fail(value, keyPath, "expected an absolute directory") }
                reports = directory
            }
        }
        do {
            var configuration = try CPUMonitorConfiguration(
                limitPercent: limit, windowSeconds: window, intervalSeconds: interval, durationSeconds: nil)
            configuration.action = action
            configuration.dryRun = dryRun
            configuration.selectors = selectors
            try configuration.validate()
            return DaemonConfiguration.CPUWatch(configuration: configuration, reports: reports)
        } catch {
            throw yaml.fail(node, path, "\(error)")
        }
    }

    func beaconMonitor(_ node: Node, _ path: String) throws(ConfigurationError) -> DaemonConfiguration.BeaconMonitor {
        var regions: [BeaconRegion]?
        var monitor = DaemonConfiguration.BeaconMonitor(regions: [])
        for (name, _, value) in try yaml.mapping(node, path, allowed: ["regions", "exitTimeout", "exec", "adapter", "transport"]) {
            let keyPath = "\(path).\(name)"
            switch name {
            case "regions":
                var specs: [String] = []
                for item in yaml.list(value, keyPath) { specs.append(try yaml.string(item, keyPath)) }
                do {
                    regions = try BeaconRegion.parse(specs)
                } catch {
                    throw yaml.fail(value, keyPath, error.description)
                }
            case "exitTimeout":
                monitor.exitTimeout = .seconds(try yaml.number(value, keyPath, in: 0.1...86_400))
            case "exec":
                monitor.exec = try yaml.string(value, keyPath)
            case "transport":
                let text = try yaml.string(value, keyPath)
                guard let kind = BeaconTransportKind(rawValue: text) else {
                    throw yaml.fail(value, keyPath, "expected auto, hci or bluez, found \"\(text)\"")
                }
                monitor.transport = kind
            default:
                let name = try yaml.string(value, keyPath)
                guard name.hasPrefix("hci"), let index = Int(name.dropFirst(3)), (0...63).contains(index) else {
                    throw yaml.fail(value, keyPath, "expected an HCI adapter name like hci0, found \"\(name)\"")
                }
                monitor.adapter = name
            }
        }
        guard let regions, !regions.isEmpty else { throw yaml.fail(node, path, "missing key `regions` (at least one region)") }
        monitor.regions = regions
        return monitor
    }
}
