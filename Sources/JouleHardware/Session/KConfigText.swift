/// KConfig's INI text (`~/.config/kdeglobals`): `[Group]` headers and `Key=value` lines. Pure:
/// it edits one line and leaves every other byte as it was, comments and other groups included.
public enum KConfigText {
    /// The value of `key` in `group`, or nil when the group or key is absent.
    public static func value(in text: String, group: String, key: String) -> String? {
        let lines = split(text)
        guard let range = groupRange(lines, group) else { return nil }
        for index in range {
            if let value = valueOf(lines[index], key: key) { return value }
        }
        return nil
    }

    /// `text` with `key` in `group` set to `value` (the group appended when absent), or removed
    /// when `value` is nil (its group too, when that leaves the group empty).
    public static func setting(_ value: String?, in text: String, group: String, key: String) -> String {
        var lines = split(text)
        if let range = groupRange(lines, group) {
            if let index = range.first(where: { valueOf(lines[$0], key: key) != nil }) {
                if let value {
                    lines[index] = "\(key)=\(value)"
                } else {
                    lines.remove(at: index)
                    let header = range.lowerBound - 1
                    let rest = lines[range.lowerBound..<(range.upperBound - 1)]
                    if rest.allSatisfy({ $0.sessionTrimmed.isEmpty }) {
                        lines.removeSubrange(header..<(range.upperBound - 1))
                    }
                }
            } else if let value {
                // After the group's last non-blank line, so a blank separator stays last.
                var insert = range.upperBound
                while insert > range.lowerBound, lines[insert - 1].sessionTrimmed.isEmpty { insert -= 1 }
                lines.insert("\(key)=\(value)", at: insert)
            }
        } else if let value {
            if let last = lines.last, last.isEmpty { lines.removeLast() }
            if !lines.isEmpty { lines.append("") }
            lines += ["[\(group)]", "\(key)=\(value)", ""]
        }
        return lines.joined(separator: "\n")
    }

    /// Lines without their newlines; a final newline gives a last empty line, so joining with
    /// "\n" gives the text back byte for byte.
    private static func split(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The indices of `group`'s lines after its header, up to the next header.
    private static func groupRange(_ lines: [String], _ group: String) -> Range<Int>? {
        guard let header = lines.firstIndex(where: { $0.sessionTrimmed == "[\(group)]" }) else { return nil }
        var end = header + 1
        while end < lines.count, !lines[end].sessionTrimmed.hasPrefix("[") { end += 1 }
        return (header + 1)..<end
    }

    /// The value when `line` is `key=value` (spaces around `=` allowed, as KConfig reads them).
    private static func valueOf(_ line: String, key: String) -> String? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        guard String(line[..<equals]).sessionTrimmed == key else { return nil }
        return String(line[line.index(after: equals)...]).sessionTrimmed
    }
}
