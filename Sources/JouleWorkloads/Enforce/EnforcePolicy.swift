import JouleHardware
import JouleEnergy
import Yams

/// What `joule enforce` pauses, read from a YAML policy file:
///
/// ```yaml
/// version: 1
/// rescanInterval: 5
/// classes:
///   transcode:
///     level: deferrable
///     match:
///       - process: ffmpeg
///   backups:
///     level: optional
///     pauseInLowPowerMode: true
///     match:
///       - unit: restic-backup.service
/// ```
public struct EnforcePolicy: Sendable, Hashable {
    public var classes: [WorkloadClass]
    /// How often the selectors of paused classes are re-resolved, so new matching processes
    /// are paused too (the YAML key `rescanInterval`, in seconds).
    public var rescanInterval: Duration

    public static let defaultRescanInterval: Duration = .seconds(5)

    public init(classes: [WorkloadClass], rescanInterval: Duration = defaultRescanInterval) {
        self.classes = classes
        self.rescanInterval = rescanInterval
    }

    /// Reads and parses `path`.
    public static func load(path: String) throws(EnforcePolicyError) -> EnforcePolicy {
        try parse(yaml: try YAMLReader.read(path: path), file: path)
    }

    /// Parses policy text; `file` only names the source in errors.
    public static func parse(yaml: String, file: String) throws(EnforcePolicyError) -> EnforcePolicy {
        guard let root = try YAMLReader.compose(yaml: yaml, file: file) else {
            throw EnforcePolicyError(file: file, message: "the policy is empty: it needs `classes`")
        }
        return try PolicyReader(yaml: YAMLReader(file: file)).policy(root)
    }
}

/// Walks a composed policy tree, checking every key and value (also the daemon config's
/// inline `enforce`).
package struct PolicyReader {
    package let yaml: YAMLReader

    package init(yaml: YAMLReader) { self.yaml = yaml }

    func fail(_ node: Node?, _ key: String?, _ message: String) -> ConfigurationError { yaml.fail(node, key, message) }
    func mapping(_ node: Node, _ key: String?, allowed: [String]?) throws(ConfigurationError) -> [(String, Node, Node)] {
        try yaml.mapping(node, key, allowed: allowed)
    }
    func kind(_ node: Node) -> String { yaml.kind(node) }
    func string(_ node: Node, _ key: String) throws(ConfigurationError) -> String { try yaml.string(node, key) }

    package func policy(_ root: Node) throws(EnforcePolicyError) -> EnforcePolicy {
        var classes: [WorkloadClass]?
        var rescan = EnforcePolicy.defaultRescanInterval
        for (name, _, value) in try mapping(root, nil, allowed: ["version", "rescanInterval", "classes"]) {
            switch name {
            case "version":
                guard value.scalar != nil, value.int == 1 else {
                    throw fail(value, name, "unsupported version \(kind(value)) (this joule reads version 1)")
                }
            case "rescanInterval":
                guard value.scalar != nil, let seconds = value.float, seconds >= 0.05, seconds <= 86_400 else {
                    throw fail(value, name, "expected seconds between 0.05 and 86400, found \(kind(value))")
                }
                rescan = .seconds(seconds)
            default:
                classes = try workloadClasses(value)
            }
        }
        guard let classes else { throw fail(root, nil, "missing key `classes`") }
        return EnforcePolicy(classes: classes, rescanInterval: rescan)
    }

    func workloadClasses(_ node: Node) throws(EnforcePolicyError) -> [WorkloadClass] {
        let pairs = try mapping(node, "classes", allowed: nil)
        guard !pairs.isEmpty else { throw fail(node, "classes", "no classes: name at least one") }
        var result: [WorkloadClass] = []
        for (name, keyNode, value) in pairs {
            let path = "classes.\(name)"
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw fail(keyNode, path, "class names are single words")
            }
            result.append(try workloadClass(name, value, path))
        }
        return result
    }

    func workloadClass(_ name: String, _ node: Node, _ path: String) throws(EnforcePolicyError) -> WorkloadClass {
        var level = WorkloadLevel.normal
        var selectors: [WorkloadSelector]?
        var pauseAt: ThermalState??
        var pauseInLowPowerMode: Bool?
        let allowed = ["level", "match", "pauseAt", "pauseInLowPowerMode", "description"]
        for (key, _, value) in try mapping(node, path, allowed: allowed) {
            let keyPath = "\(path).\(key)"
            switch key {
            case "level":
                let word = try string(value, keyPath)
                guard let parsed = WorkloadLevel(rawValue: word) else {
                    throw fail(value, keyPath, "unknown level \"\(word)\" (expected deferrable, optional or normal)")
                }
                level = parsed
            case "match":
                selectors = try selectorList(value, keyPath)
            case "pauseAt":
                let word = try string(value, keyPath)
                if word == "never" {
                    pauseAt = .some(nil)
                } else if let state = ThermalState(name: word), state != .nominal {
                    pauseAt = .some(state)
                } else {
                    throw fail(value, keyPath, "expected fair, serious, critical or never, found \"\(word)\"")
                }
            case "pauseInLowPowerMode":
                guard value.scalar != nil, let flag = value.bool else {
                    throw fail(value, keyPath, "expected true or false, found \(kind(value))")
                }
                pauseInLowPowerMode = flag
            default:
                _ = try string(value, keyPath)  // description: free text
            }
        }
        guard let selectors else { throw fail(node, path, "missing key `match` (the selectors of the class)") }
        return WorkloadClass(
            name: name, level: level, selectors: selectors, pauseAt: pauseAt, pauseInLowPowerMode: pauseInLowPowerMode)
    }

    func selectorList(_ node: Node, _ path: String) throws(EnforcePolicyError) -> [WorkloadSelector] {
        guard let sequence = node.sequence else {
            throw fail(node, path, "expected a list of selectors (- process: NAME), found \(kind(node))")
        }
        guard !sequence.isEmpty else { throw fail(node, path, "no selectors: the class would match nothing") }
        var result: [WorkloadSelector] = []
        for (index, item) in sequence.enumerated() {
            let itemPath = "\(path)[\(index)]"
            let pairs = try mapping(item, itemPath, allowed: Self.selectorKeys)
            guard pairs.count == 1, let pair = pairs.first else {
                throw fail(item, itemPath, "each selector has exactly one key (\(Self.selectorKeys.joined(separator: ", ")))")
            }
            result.append(try selector(pair.0, pair.2, "\(itemPath).\(pair.0)"))
        }
        return result
    }

    static let selectorKeys = ["cgroup", "unit", "process", "processRegex", "commandRegex", "pidFile"]

    func selector(_ key: String, _ node: Node, _ path: String) throws(EnforcePolicyError) -> WorkloadSelector {
        let text = try string(node, path)
        switch key {
        case "cgroup":
            guard let cgroup = CgroupPath(validating: text) else {
                throw fail(node, path, "\"\(text)\" is not a cgroup below the root (e.g. system.slice/backup.service or /sys/fs/cgroup/system.slice/backup.service; no `..`)")
            }
            return .cgroup(cgroup.description)
        case "unit":
            guard let unit = WorkloadSelectorSyntax.unitName(text) else {
                throw fail(node, path, "\"\(text)\" is not a unit name (NAME, NAME.service, NAME.scope or NAME.slice)")
            }
            return .unit(unit)
        case "process":
            return .process(text)
        case "processRegex", "commandRegex":
            do {
                _ = try Regex(text)
            } catch {
                throw fail(node, path, "bad regular expression \"\(text)\": \(error)")
            }
            return key == "processRegex" ? .processRegex(text) : .commandRegex(text)
        default:
            guard text.hasPrefix("/") else { throw fail(node, path, "the pid file must be an absolute path, found \"\(text)\"") }
            return .pidFile(text)
        }
    }
}

/// Checks and normalises selector values.
enum WorkloadSelectorSyntax {
    /// The unit name with `.service` added when it has no unit type.
    static func unitName(_ text: String) -> String? {
        guard !text.contains("/"), !text.contains(where: { $0.isWhitespace }) else { return nil }
        for suffix in [".service", ".scope", ".slice"] where text.hasSuffix(suffix) {
            return text.count > suffix.count ? text : nil
        }
        guard let dot = text.lastIndex(of: ".") else { return text + ".service" }
        // Another unit type (timer, socket…) owns no processes; a dot inside a name is fine.
        let type = text[text.index(after: dot)...]
        let others = ["timer", "socket", "target", "path", "mount", "automount", "swap", "device"]
        return others.contains(String(type)) ? nil : text + ".service"
    }
}
