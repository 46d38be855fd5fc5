/// Builds SVG (and the HTML around it) as text: elements with attributes in the order given,
/// text escaped, coordinates rounded to a tenth of a pixel so files stay small and stable.
struct SVGWriter {
    private(set) var text = ""
    private var depth = 0

    /// An element with children; `close` ends it.
    mutating func open(_ name: String, _ attributes: [(String, String)] = []) {
        line("<\(name)\(Self.attributes(attributes))>")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    /// An element without children, or with `content` as its text.
    mutating func element(_ name: String, _ attributes: [(String, String)] = [], content: String? = nil) {
        if let content {
            line("<\(name)\(Self.attributes(attributes))>\(Self.escape(content))</\(name)>")
        } else {
            line("<\(name)\(Self.attributes(attributes))/>")
        }
    }

    /// Markup written as is (already escaped).
    mutating func raw(_ markup: String) { line(markup) }

    private mutating func line(_ markup: String) {
        text += String(repeating: " ", count: depth * 2) + markup + "\n"
    }

    private static func attributes(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// XML-escapes text and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // XML 1.0 forbids most control characters even escaped.
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                   scalar.value < 0x20, scalar != "\n", scalar != "\t" {
                    out += " "
                } else {
                    out.append(character)
                }
            }
        }
        return out
    }

    /// `12.3`, `40` (no trailing `.0`), rounded to a tenth.
    static func number(_ value: Double) -> String {
        // A damaged row (a time or value of 1e300) maps far outside any viewBox: clamped to
        // ±1e12, beyond any drawing, so the conversion to Int64 below can never trap.
        let tenths = (min(max(value, -1e12), 1e12) * 10).rounded()
        guard tenths.isFinite else { return "0" }
        let whole = Int64(tenths) / 10, fraction = abs(Int64(tenths) % 10)
        if fraction == 0 { return String(whole) }
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }

    /// `M x,y L x,y …` for a polyline's points.
    static func path(_ points: [(Double, Double)]) -> String {
        points.enumerated().map { index, point in
            "\(index == 0 ? "M" : "L")\(number(point.0)),\(number(point.1))"
        }.joined(separator: " ")
    }
}
