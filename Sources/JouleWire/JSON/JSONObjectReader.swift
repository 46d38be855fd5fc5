
/// One object of a JSON contract read back key by key (a transfer of `Get`, the history of
/// `GetHistory`): every key is required, each read through a conversion that returns nil for a
/// wrong value, and a failure names the key's path and clips the bad value.
package struct JSONObjectReader {
    package let object: JSONObject
    /// Prepended to every key in errors: `[3].` in a list, `samples[2].` in a nested object.
    package let prefix: String

    package init(object: JSONObject, prefix: String) {
        self.object = object
        self.prefix = prefix
    }

    package func failure(_ key: String, expected: String, got value: JSONValue) -> JSONDecodingError {
        JSONDecodingError(key: prefix + key, message: "expected \(expected), got \(Self.clip(value))")
    }

    package func required<T>(_ key: String, _ expected: String, _ convert: (JSONValue) -> T?) throws(JSONDecodingError) -> T {
        guard let value = object[key] else { throw JSONDecodingError(key: prefix + key, message: "missing") }
        guard let converted = convert(value) else { throw failure(key, expected: expected, got: value) }
        return converted
    }

    package func optional<T>(_ key: String, _ expected: String, _ convert: (JSONValue) -> T?) throws(JSONDecodingError) -> T? {
        guard let value = object[key] else { throw JSONDecodingError(key: prefix + key, message: "missing") }
        if value.isNull { return nil }
        guard let converted = convert(value) else { throw failure(key, expected: expected + " or null", got: value) }
        return converted
    }

    /// A contract's text parsed, a syntax error as the whole text's decoding error.
    package static func parse(_ text: String) throws(JSONDecodingError) -> JSONValue {
        do throws(JSONParseError) { return try JSONParser.parse(text) } catch {
            throw JSONDecodingError(key: "", message: error.description)
        }
    }

    /// At most 80 characters of a bad value in a message.
    package static func clip(_ value: JSONValue) -> String {
        let text = value.serialized
        return text.count <= 80 ? text : String(text.prefix(80)) + "…"
    }

    /// A non-negative integer as Int64.
    package static func count(_ value: JSONValue) -> Int64? { value.intValue.flatMap { $0 >= 0 ? Int64($0) : nil } }
}
