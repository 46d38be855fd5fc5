import JouleWire
import Testing

@Suite struct JSONParserTests {
    @Test func readsWhatTheSerializerWrites() throws {
        var object = JSONObject()
        object["b"] = .int(-42)
        object["a"] = .double(1.5)
        object["text"] = .string("quote \" slash \\ tab \t nl \n ctl \u{01} é 🔋")
        object["list"] = .array([.null, .bool(true), .bool(false), .int(0), .object(JSONObject())])
        let value = JSONValue.object(object)
        let parsed = try JSONParser.parse(value.serialized)
        #expect(parsed == value)
        // Key order survives: the contracts are ordered.
        #expect(parsed.serialized == value.serialized)
    }

    @Test func numbers() throws {
        #expect(try JSONParser.parse("123") == .int(123))
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("1e3") == .double(1000))
        #expect(try JSONParser.parse("2.50") == .double(2.5))
        #expect(try JSONParser.parse("-1.25E-2") == .double(-0.0125))
        // Beyond Int: a double, still exact enough to read back.
        #expect(try JSONParser.parse("18446744073709551616") == .double(18446744073709551616))
        #expect(try JSONParser.parse(" [1 , 2] ") == .array([.int(1), .int(2)]))
    }

    @Test func escapes() throws {
        #expect(try JSONParser.parse(#""\u00e9\ud83d\udd0b\/""#) == .string("é🔋/"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "tru", "nul", "NaN", "Infinity",
        "\"a", "\"\u{01}\"", "\"\\x\"", "\"\\ud83d\"", "\"\\udd0b\"", "{1:2}", "[1 2]", "1 2", "1e999",
        "{\"a\" 1}", "/* c */ 1",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func invalidUTF8InAStringIsAnError() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func depthIsBoundedWithoutCrashing() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        #expect(error.message.contains("nested deeper"))
        let fine = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect(throws: Never.self) { try JSONParser.parse(fine) }
    }

    @Test func errorsNameTheOffset() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse("{\"a\": tru}") }
        #expect(error.offset == 6)
        #expect(error.description == "invalid JSON at byte 6: unknown literal")
    }

    @Test func accessors() throws {
        let value = try JSONParser.parse(#"{"n":3,"d":3.0,"s":"x","b":true,"l":[1],"z":null}"#)
        #expect(value["n"]?.intValue == 3 && value["d"]?.intValue == 3 && value["d"]?.doubleValue == 3)
        #expect(value["s"]?.stringValue == "x" && value["b"]?.boolValue == true)
        #expect(value["l"]?.arrayValue == [.int(1)] && value["z"]?.isNull == true && value["missing"] == nil)
        #expect(value["s"]?.intValue == nil && JSONValue.int(1)["k"] == nil)
    }
}
