import JouleWire
import Testing

/// `LifecycleMessage.decodeFromJoule`, what apps read joule's packets with (JouleApplication
/// among them, since its own Foundation decoder went). Where the two decoders differed, each
/// case is decided by one test here; the app side stays at least as lenient for everything a
/// joule has ever written (joule writes through `LifecycleMessage.encoded`, pinned in
/// `LifecycleMessageTests.joulesMessagesAreWrittenAsTheProtocolSays`).
@Suite struct LifecycleFromJouleTests {
    static func decode(_ text: String) throws(LifecycleMessageError) -> LifecycleMessage {
        try LifecycleMessage.decodeFromJoule(Array(text.utf8))
    }

    static func error(_ text: String) -> LifecycleMessageError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyEventAndStateIsRead() throws {
        // All ten events, also the five joule keeps to its log: a joule that sends them is not malformed.
        for event in AppLifecycleEvent.allCases {
            for state in AppLifecycleState.allCases {
                #expect(try Self.decode(#"{"event": "\#(event)", "state": "\#(state)", "deadline": 1.5}"#)
                    == .event(event, state: state, deadline: 1.5))
            }
        }
    }

    @Test func neitherAnEventNorAReplyIsRefused() {
        #expect(Self.error(#"{"state": "active"}"#) == .unrecognized("no \"event\", \"taskId\" or \"remaining\" key"))
        #expect(Self.error("[]") == .notAnObject)
        #expect(Self.error("null") == .notAnObject)
    }

    /// Difference 1: the app's decoder read an event without `deadline`; this one wanted the key.
    /// Decided: absent reads as null.
    @Test func anEventWithoutADeadlineReadsAsNone() throws {
        #expect(try Self.decode(#"{"event":"didEnterBackground","state":"background"}"#)
            == .event(.didEnterBackground, state: .background, deadline: nil))
        #expect(try Self.decode(#"{"event":"didEnterBackground","state":"background","deadline":null}"#)
            == .event(.didEnterBackground, state: .background, deadline: nil))
        #expect(try Self.decode(#"{"event":"didEnterBackground","state":"background","deadline":1700000005.125}"#)
            == .event(.didEnterBackground, state: .background, deadline: 1_700_000_005.125))
        // Present, it must still be a number or null.
        #expect(Self.error(#"{"event":"didEnterBackground","state":"background","deadline":"5"}"#)
            == .wrongType("deadline", in: "event message", expected: "a number or null"))
    }

    /// Differences 2 and 3: the app's decoder read a task reply without `remaining`, or with
    /// null, as 0; this one wanted the key and read null as nil. Decided: both read as nil.
    /// JouleApplication never used a task reply's `remaining` (it answers with the id alone),
    /// so the app sees no difference (JouleApplicationTests/PacketsFromJouleTests).
    @Test func aTaskReplyWithoutRemainingOrWithNullReadsAsNone() throws {
        #expect(try Self.decode(#"{"taskId":7}"#) == .taskBegan(taskId: 7, remaining: nil))
        #expect(try Self.decode(#"{"taskId":7,"remaining":null}"#) == .taskBegan(taskId: 7, remaining: nil))
        #expect(try Self.decode(#"{"taskId":null}"#) == .taskBegan(taskId: nil, remaining: nil))
        #expect(try Self.decode(#"{"taskId":null,"remaining":0}"#) == .taskBegan(taskId: nil, remaining: 0))
        #expect(try Self.decode(#"{"taskId":7,"remaining":29.5}"#) == .taskBegan(taskId: 7, remaining: 29.5))
        #expect(Self.error(#"{"taskId":7,"remaining":"soon"}"#)
            == .wrongType("remaining", in: "task reply", expected: "a number or null"))
    }

    /// Difference 4: the app's decoder refused a `taskId` below 1; this one took any integer.
    /// Decided: refused, as joule numbers tasks from 1 and an app takes 0 for "no task".
    @Test func aTaskIdBelowOneIsRefused() throws {
        let positive = LifecycleMessageError.wrongType("taskId", in: "task reply", expected: "a positive integer or null")
        for id in ["0", "-3", "-0", "0.0"] {
            #expect(Self.error(#"{"taskId":\#(id),"remaining":1}"#) == positive, "taskId \(id)")
        }
        #expect(positive.description == "task reply: \"taskId\" must be a positive integer or null")
        #expect(try Self.decode(#"{"taskId":1,"remaining":1}"#) == .taskBegan(taskId: 1, remaining: 1))
    }

    /// Difference 5: the app's decoder did not check the size (its socket reports a packet
    /// over the limit as oversized before decoding); this one refuses it. Decided: both stay,
    /// with the one limit, `maxBytes`; exactly at it is read.
    @Test func aPacketOverTheLimitIsRefusedUnreadAndOneAtItIsRead() throws {
        let event = #"{"event":"willResignActive","state":"inactive","deadline":null}"#
        let exact = event + String(repeating: " ", count: LifecycleMessage.maxBytes - event.utf8.count)
        #expect(try Self.decode(exact) == .event(.willResignActive, state: .inactive, deadline: nil))
        #expect(Self.error(exact + " ") == .tooLarge(bytes: 4097, limit: 4096))
    }

    /// Difference 6: numbers for `taskId`. Foundation's rules and `JSONValue.intValue`'s agree
    /// on everything a joule writes (a plain integer) and on these; decided: `intValue`'s.
    @Test func aTaskIdIsAnIntegerAsJSONValueReadsOne() throws {
        #expect(try Self.decode(#"{"taskId":1.0,"remaining":1}"#) == .taskBegan(taskId: 1, remaining: 1))
        #expect(try Self.decode(#"{"taskId":1e0,"remaining":1}"#) == .taskBegan(taskId: 1, remaining: 1))
        #expect(try Self.decode(#"{"taskId":1E2,"remaining":1}"#) == .taskBegan(taskId: 100, remaining: 1))
        #expect(try Self.decode(#"{"taskId":9223372036854775807,"remaining":1}"#) == .taskBegan(taskId: .max, remaining: 1))
        let positive = LifecycleMessageError.wrongType("taskId", in: "task reply", expected: "a positive integer or null")
        for id in ["1.5", #""1""#, "true", "9223372036854775808"] {
            #expect(Self.error(#"{"taskId":\#(id),"remaining":1}"#) == positive, "taskId \(id)")
        }
        // Where they differ: Foundation read an integral double of 9e15 or more as an Int;
        // `intValue` does not (no joule writes an id as a double).
        #expect(Self.error(#"{"taskId":1e16,"remaining":1}"#) == positive)
    }

    /// Found by running both decoders on the same inputs: Foundation's also read a leading
    /// byte-order mark, a trailing comma, a raw control character, an unknown escape or a lone
    /// surrogate in a string. No joule wrote any of them (`JSONValue.serialized` never does), so
    /// they stay refused, as the daemon refuses them from an app.
    @Test func bytesNoJouleWroteAreRefused() {
        for text in [
            "\u{FEFF}{\"remaining\":1}", #"{"remaining":1,}"#, "{\"remaining\":1,\"x\":\"a\tb\"}",
            #"{"remaining":1,"x":"\x"}"#, #"{"remaining":1,"x":"\ud800"}"#,
        ] {
            guard case .notJSON? = Self.error(text) else {
                Issue.record("\(text.debugDescription) read as \(String(describing: try? Self.decode(text)))")
                continue
            }
        }
    }

    /// Also found so: a key written twice. Foundation's decoder took the first value, the
    /// parser takes the last (joule writes each key once).
    @Test func aKeyWrittenTwiceTakesItsLastValue() throws {
        #expect(try Self.decode(#"{"taskId":null,"taskId":3,"remaining":1}"#) == .taskBegan(taskId: 3, remaining: 1))
    }
}
