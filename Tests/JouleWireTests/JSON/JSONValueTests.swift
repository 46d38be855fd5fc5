import Testing
@testable import JouleWire

@Suite struct JSONValueTests {
    @Test func unknownNumbersAreNull() {
        #expect(JSONValue.from(nil as Double?).serialized == "null")
        #expect(JSONValue.from(Double.nan).serialized == "null")
        #expect(JSONValue.from(Double.infinity).serialized == "null")
        #expect(JSONValue.from(nil as Int?).serialized == "null")
    }

    @Test func numbersKeepPrecisionAndRound() {
        #expect(JSONValue.double(80).serialized == "80")
        #expect(JSONValue.double(2.5).serialized == "2.5")
        #expect(JSONValue.from(47.99999999, places: 3).serialized == "48")
        #expect(JSONValue.from(12.3456, places: 2).serialized == "12.35")
        // Too large to scale: kept, not null (a damaged history row's time read back as null).
        #expect(JSONValue.from(-1e308, places: 3).serialized == JSONValue.double(-1e308).serialized)
        #expect(JSONValue.from(-1e308, places: 3).serialized != "null")
    }

    @Test func objectsKeepKeyOrderAndEscapeStrings() {
        var object: JSONObject = ["b": .int(1), "a": .string("q\"\\\n\u{1}")]
        object["b"] = .bool(true)
        object["c"] = .null
        #expect(JSONValue.object(object).serialized == #"{"b":true,"a":"q\"\\\n\u0001","c":null}"#)
    }
}
