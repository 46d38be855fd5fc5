import JouleHardware
import Yams

/// Reads composed YAML nodes for Joule's config files, so every error names
/// `file:line:column: key` the same way: enforce policies and the daemon's config.
package struct YAMLReader {
    package let file: String
    /// Put before every key in errors, for a document nested in another (`enforce.classes…`).
    package var keyPrefix: String? = nil

    package init(file: String, keyPrefix: String? = nil) {
        self.file = file
        self.keyPrefix = keyPrefix
    }

    /// The file's text, or an error naming it and the errno. As root, a file that another user
    /// could have changed is refused, saying which file or directory lets them (as sudo does
    /// for sudoers): root must not act on another user's words.
    package static func read(path: String) throws(ConfigurationError) -> String {
        if CurrentProcess.isRoot, let problem = FileTrust.problem(with: path) {
            throw ConfigurationError(file: path, message: "refused: \(problem); as root, joule reads only files no other user can change")
        }
        do {
            return try FileSystem.readText(path)
        } catch {
            throw ConfigurationError(file: path, message: "cannot read: \(error.errno.map { "\($0)" } ?? error.description)")
        }
    }

    /// The document's root node; nil for an empty document.
    package static func compose(yaml: String, file: String) throws(ConfigurationError) -> Node? {
        do {
            return try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw syntaxError(error, file: file)
        } catch {
            throw ConfigurationError(file: file, message: "not valid YAML: \(error)")
        }
    }

    private static func syntaxError(_ error: YamlError, file: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) (\($0.text))" } ?? problem
            return ConfigurationError(file: file, line: mark.line, column: mark.column, message: "not valid YAML: \(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let mark = context.mark
            return ConfigurationError(
                file: file, line: mark.line > 0 ? mark.line : nil, column: mark.line > 0 ? mark.column : nil,
                message: "duplicate key \(duplicates.map { "\"\($0)\"" }.joined(separator: ", "))")
        case .reader(let problem, _, _, _):
            return ConfigurationError(file: file, message: "not valid text: \(problem)")
        default:
            return ConfigurationError(file: file, message: "not valid YAML: \(error)")
        }
    }

    package func fail(_ node: Node?, _ key: String?, _ message: String) -> ConfigurationError {
        let key = keyPrefix.map { prefix in key.map { "\(prefix).\($0)" } ?? prefix } ?? key
        return ConfigurationError(file: file, line: node?.mark?.line, column: node?.mark?.column, key: key, message: message)
    }

    /// The pairs of a mapping, rejecting keys outside `allowed` and non-string keys.
    package func mapping(_ node: Node, _ key: String?, allowed: [String]?) throws(ConfigurationError) -> [(String, Node, Node)] {
        guard let mapping = node.mapping else {
            throw fail(node, key, "expected a mapping (key: value), found \(kind(node))")
        }
        var seen: Set<String> = []
        var pairs: [(String, Node, Node)] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string else { throw fail(keyNode, key, "keys must be plain words") }
            let path = key.map { "\($0).\(name)" } ?? name
            if let allowed, !allowed.contains(name) {
                throw fail(keyNode, path, "unknown key (expected \(allowed.joined(separator: ", ")))")
            }
            guard seen.insert(name).inserted else { throw fail(keyNode, path, "duplicate key") }
            pairs.append((name, keyNode, value))
        }
        return pairs
    }

    package func kind(_ node: Node) -> String {
        switch node {
        case .scalar(let s): "\"\(s.string)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    package func string(_ node: Node, _ key: String) throws(ConfigurationError) -> String {
        guard let scalar = node.scalar else { throw fail(node, key, "expected a string, found \(kind(node))") }
        let text = scalar.string
        guard !text.isEmpty, !text.allSatisfy({ $0 == " " || $0 == "\t" }) else { throw fail(node, key, "must not be empty") }
        return text
    }

    package func bool(_ node: Node, _ key: String) throws(ConfigurationError) -> Bool {
        guard node.scalar != nil, let flag = node.bool else { throw fail(node, key, "expected true or false, found \(kind(node))") }
        return flag
    }

    /// A number within `range`.
    package func number(_ node: Node, _ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard node.scalar != nil, let value = node.float, value.isFinite, range.contains(value) else {
            throw fail(node, key, "expected a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)), found \(kind(node))")
        }
        return value
    }

    /// A list; a single scalar counts as a list of one.
    package func list(_ node: Node, _ key: String) -> [Node] {
        if let sequence = node.sequence { return Array(sequence) }
        return [node]
    }

    /// True for an empty value (`key:` or `key: {}` or `key: null`).
    package func isEmpty(_ node: Node) -> Bool {
        if let scalar = node.scalar { return scalar.string.isEmpty || node.null != nil }
        if let mapping = node.mapping { return mapping.isEmpty }
        return false
    }

    package static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
