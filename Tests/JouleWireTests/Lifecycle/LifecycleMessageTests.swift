@testable import JouleWire
import Testing

@Suite struct LifecycleMessageTests {
    static func decode(_ text: String) throws(LifecycleMessageError) -> LifecycleMessage {
        try LifecycleMessage.decodeRequest(Array(text.utf8))
    }

    static func error(_ text: String) -> LifecycleMessageError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func theAppsThreeRequestsAreRead() throws {
        #expect(try Self.decode(#"{"request":"beginBackgroundTask","name":"upload"}"#) == .beginBackgroundTask(name: "upload"))
        #expect(try Self.decode(#" {"taskId": 3, "request": "endBackgroundTask"} "#) == .endBackgroundTask(taskId: 3))
        #expect(try Self.decode(#"{"request":"backgroundTimeRemaining"}"#) == .backgroundTimeRemaining)
        // Another writer's 3.0 is the integer 3.
        #expect(try Self.decode(#"{"request":"endBackgroundTask","taskId":3.0}"#) == .endBackgroundTask(taskId: 3))
    }

    @Test func joulesMessagesAreWrittenAsTheProtocolSays() {
        #expect(LifecycleMessage.event(.didEnterBackground, state: .background, deadline: 1_700_000_006).json.serialized
            == #"{"event":"didEnterBackground","state":"background","deadline":1700000006}"#)
        #expect(LifecycleMessage.event(.didBecomeActive, state: .active, deadline: nil).json.serialized
            == #"{"event":"didBecomeActive","state":"active","deadline":null}"#)
        #expect(LifecycleMessage.taskBegan(taskId: 1, remaining: 29.5).json.serialized == #"{"taskId":1,"remaining":29.5}"#)
        #expect(LifecycleMessage.taskBegan(taskId: nil, remaining: 0).json.serialized == #"{"taskId":null,"remaining":0}"#)
        #expect(LifecycleMessage.remaining(nil).json.serialized == #"{"remaining":null}"#)
        #expect(LifecycleMessage.remaining(2.123456).json.serialized == #"{"remaining":2.123}"#)
    }

    @Test func everyMessageReadsBackAsWritten() throws {
        let requests: [LifecycleMessage] = [.beginBackgroundTask(name: "a \"quoted\" name"), .endBackgroundTask(taskId: 9), .backgroundTimeRemaining]
        for message in requests {
            #expect(message.isRequest)
            #expect(try LifecycleMessage.decodeRequest(message.encoded) == message)
        }
        let replies: [LifecycleMessage] = [
            .event(.backgroundTimeWillExpire, state: .background, deadline: 1_700_000_030.5),
            .event(.willEnterForeground, state: .inactive, deadline: nil),
            .taskBegan(taskId: 4, remaining: 12), .taskBegan(taskId: nil, remaining: 0), .remaining(3.25), .remaining(nil),
        ]
        for message in replies {
            #expect(!message.isRequest)
            #expect(try LifecycleMessage.decodeFromJoule(message.encoded) == message)
        }
    }

    @Test func textThatIsNotJSONIsRefusedWithWhere() {
        let error = Self.error("hello")
        guard case .notJSON(let parse)? = error else {
            Issue.record("expected notJSON, got \(String(describing: error))")
            return
        }
        #expect(parse.offset == 0)
        #expect(error?.description.hasPrefix("message is not JSON: invalid JSON at byte 0") == true)
        if case .notJSON? = Self.error(#"{"request":"backgroundTimeRemaining""#) {} else { Issue.record("a truncated object must be notJSON") }
    }

    @Test func aMessageOverTheLimitIsRefusedUnparsed() {
        let padding = String(repeating: " ", count: LifecycleMessage.maxBytes)
        let text = #"{"request":"backgroundTimeRemaining"}"# + padding
        #expect(Self.error(text) == .tooLarge(bytes: text.utf8.count, limit: 4096))
        #expect(Self.error(text)?.description == "message too large: \(text.utf8.count) bytes, the limit is 4096")
        // Exactly at the limit is fine.
        let fitting = #"{"request":"backgroundTimeRemaining"}"#
        let exact = fitting + String(repeating: " ", count: LifecycleMessage.maxBytes - fitting.utf8.count)
        #expect(Self.error(exact) == nil)
    }

    @Test func jsonThatIsNotAnObjectIsRefused() {
        #expect(Self.error("[1,2]") == .notAnObject)
        #expect(Self.error(#""beginBackgroundTask""#) == .notAnObject)
    }

    @Test func anUnknownRequestIsNamed() {
        #expect(Self.error(#"{"request":"fly"}"#) == .unknownRequest("fly"))
        #expect(Self.error(#"{"request":"fly"}"#)?.description
            == "unknown request \"fly\": expected beginBackgroundTask, endBackgroundTask or backgroundTimeRemaining")
        #expect(Self.error(#"{"name":"x"}"#) == .unrecognized("no \"request\" key (expected {\"request\": \"beginBackgroundTask\", …})"))
        #expect(Self.error(#"{"request":5}"#) == .wrongType("request", in: "message", expected: "a string"))
    }

    @Test func missingAndIllTypedKeysAreNamed() {
        #expect(Self.error(#"{"request":"endBackgroundTask"}"#) == .missingKey("taskId", in: "endBackgroundTask"))
        #expect(Self.error(#"{"request":"endBackgroundTask"}"#)?.description == "endBackgroundTask: missing \"taskId\"")
        #expect(Self.error(#"{"request":"beginBackgroundTask"}"#) == .missingKey("name", in: "beginBackgroundTask"))
        let positive = LifecycleMessageError.wrongType("taskId", in: "endBackgroundTask", expected: "a positive integer")
        #expect(Self.error(#"{"request":"endBackgroundTask","taskId":"1"}"#) == positive)
        #expect(Self.error(#"{"request":"endBackgroundTask","taskId":0}"#) == positive)
        #expect(Self.error(#"{"request":"endBackgroundTask","taskId":1.5}"#) == positive)
        #expect(Self.error(#"{"request":"endBackgroundTask","taskId":null}"#) == positive)
        #expect(positive.description == "endBackgroundTask: \"taskId\" must be a positive integer")
        #expect(Self.error(#"{"request":"beginBackgroundTask","name":3}"#)
            == .wrongType("name", in: "beginBackgroundTask", expected: "a string"))
    }

    @Test func badMessagesFromJouleAreNamedToo() {
        func error(_ text: String) -> LifecycleMessageError? {
            do {
                _ = try LifecycleMessage.decodeFromJoule(Array(text.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(error(#"{"event":"didEnterBackground"}"#) == .missingKey("state", in: "event message"))
        #expect(error(#"{"event":"nap","state":"background","deadline":null}"#)
            == .wrongType("event", in: "event message", expected: "an event name, not \"nap\""))
        #expect(error(#"{"event":"killed","state":"asleep","deadline":null}"#)
            == .wrongType("state", in: "event message", expected: "a state name, not \"asleep\""))
        #expect(error(#"{"taskId":"1","remaining":3}"#) == .wrongType("taskId", in: "task reply", expected: "a positive integer or null"))
        #expect(error(#"{"remaining":"soon"}"#) == .wrongType("remaining", in: "remaining reply", expected: "a number or null"))
        #expect(error(#"{"hello":1}"#) == .unrecognized("no \"event\", \"taskId\" or \"remaining\" key"))
    }
}
