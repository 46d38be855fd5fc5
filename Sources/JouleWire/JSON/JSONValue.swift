/// A JSON value whose objects keep their keys in the order written, so output follows the
/// documented contracts field by field. Unknown numbers are written as `null`, never 0,
/// and non-finite doubles become `null` rather than invalid JSON.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// `null` for nil, else the value.
    public static func from(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    /// `null` for nil or non-finite; otherwise rounded to `places` decimals when given. A value
    /// too large to scale (beyond about 1e305) has no decimals left to round and stays as it is:
    /// scaled, it overflowed to infinity and was written as null.
    public static func from(_ value: Double?, places: Int? = nil) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        guard let places else { return .double(value) }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = value * scale
        return .double(scaled.isFinite ? scaled.rounded() / scale : value)
    }
    public static func from(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    public static func from(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }

    /// Compact serialization, one line.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if !d.isFinite {
                out += "null"
            } else if d == d.rounded(), abs(d) < 1e15 {
                // Integral values print without ".0" noise but stay exact.
                out += String(Int64(d))
            } else {
                out += String(d)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, (key, value)) in object.entries.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Writes `s` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// An insertion-ordered JSON object.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var entries: [(String, JSONValue)]

    public init() { entries = [] }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { entries = elements }

    /// Sets `key`, replacing an earlier value in place or appending a new key at the end.
    public subscript(key: String) -> JSONValue? {
        get { entries.first { $0.0 == key }?.1 }
        set {
            if let index = entries.firstIndex(where: { $0.0 == key }) {
                if let newValue { entries[index].1 = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }
}
