
/// One message on the lifecycle socket (`JOULE_LIFECYCLE_SOCKET`, AF_UNIX SOCK_SEQPACKET): one
/// JSON object per packet, at most `maxBytes`.
///
/// The app sends `{"request":"beginBackgroundTask","name":N}` (answered by
/// `{"taskId":K,"remaining":SECONDS}`), `{"request":"endBackgroundTask","taskId":K}` (no
/// answer) and `{"request":"backgroundTimeRemaining"}` (answered by `{"remaining":SECONDS|null}`).
/// joule sends `{"event":NAME,"state":S,"deadline":UNIX_SECONDS|null}` for each event the app
/// hears. A task refused (no background time left) is answered `{"taskId":null,"remaining":0}`,
/// as iOS answers with an invalid identifier.
public enum LifecycleMessage: Sendable, Hashable {
    // app → joule
    case beginBackgroundTask(name: String)
    case endBackgroundTask(taskId: Int)
    case backgroundTimeRemaining
    // joule → app
    case event(AppLifecycleEvent, state: AppLifecycleState, deadline: Double?)
    case taskBegan(taskId: Int?, remaining: Double?)
    case remaining(Double?)

    /// The largest packet either side reads; longer ones are refused unread.
    public static let maxBytes = 4096

    /// Whether the app sends this message (rather than joule).
    public var isRequest: Bool {
        switch self {
        case .beginBackgroundTask, .endBackgroundTask, .backgroundTimeRemaining: true
        case .event, .taskBegan, .remaining: false
        }
    }

    /// The message as its JSON object, keys in the protocol's order.
    public var json: JSONValue {
        switch self {
        case .beginBackgroundTask(let name): .object(["request": .string("beginBackgroundTask"), "name": .string(name)])
        case .endBackgroundTask(let id): .object(["request": .string("endBackgroundTask"), "taskId": .int(id)])
        case .backgroundTimeRemaining: .object(["request": .string("backgroundTimeRemaining")])
        case .event(let event, let state, let deadline):
            .object(["event": .string(event.name), "state": .string(state.name), "deadline": .from(deadline, places: 3)])
        case .taskBegan(let id, let remaining): .object(["taskId": .from(id), "remaining": .from(remaining, places: 3)])
        case .remaining(let remaining): .object(["remaining": .from(remaining, places: 3)])
        }
    }

    /// The packet to send.
    public var encoded: [UInt8] { Array(json.serialized.utf8) }

    /// Reads a packet an app sent. `length` is the packet's real size when the socket kept
    /// only part of it (see `SeqPacketServer.Event.packet`).
    public static func decodeRequest(_ bytes: [UInt8], length: Int? = nil) throws(LifecycleMessageError) -> LifecycleMessage {
        let object = try parseObject(bytes, length: length, limit: maxBytes)
        guard let word = object["request"] else {
            throw .unrecognized("no \"request\" key (expected {\"request\": \"beginBackgroundTask\", …})")
        }
        guard let request = word.stringValue else { throw .wrongType("request", in: "message", expected: "a string") }
        switch request {
        case "beginBackgroundTask":
            return .beginBackgroundTask(name: try string("name", of: object, in: request))
        case "endBackgroundTask":
            let key = "taskId", value = try field(key, of: object, in: request)
            guard let id = value.intValue, id > 0 else { throw .wrongType(key, in: request, expected: "a positive integer") }
            return .endBackgroundTask(taskId: id)
        case "backgroundTimeRemaining":
            return .backgroundTimeRemaining
        default:
            throw .unknownRequest(request)
        }
    }

    /// Reads a packet joule sent (for apps and their libraries; JouleApplication reads with it).
    /// Lenient where joule's output could differ, so an app that links a newer library keeps
    /// reading what an older joule sends: `deadline` and `remaining` may be left out (read as
    /// null). A `taskId` is 1 or more, or null (a refusal); `3.0` or `1e1` is an integer, as
    /// `JSONValue.intValue` reads one.
    public static func decodeFromJoule(_ bytes: [UInt8]) throws(LifecycleMessageError) -> LifecycleMessage {
        let object = try parseObject(bytes, length: nil, limit: maxBytes)
        if object["event"] != nil {
            let eventWord = try string("event", of: object, in: "event message")
            guard let event = AppLifecycleEvent(rawValue: eventWord) else {
                throw .wrongType("event", in: "event message", expected: "an event name, not \"\(eventWord)\"")
            }
            let stateWord = try string("state", of: object, in: "event message")
            guard let state = AppLifecycleState(rawValue: stateWord) else {
                throw .wrongType("state", in: "event message", expected: "a state name, not \"\(stateWord)\"")
            }
            return .event(event, state: state, deadline: try seconds("deadline", of: object, in: "event message"))
        }
        if let value = object["taskId"] {
            var id: Int?
            if !value.isNull {
                // joule numbers an app's tasks from 1; an app's library takes 0 for "no task".
                guard let number = value.intValue, number >= 1 else {
                    throw .wrongType("taskId", in: "task reply", expected: "a positive integer or null")
                }
                id = number
            }
            return .taskBegan(taskId: id, remaining: try seconds("remaining", of: object, in: "task reply"))
        }
        if object["remaining"] != nil {
            return .remaining(try seconds("remaining", of: object, in: "remaining reply"))
        }
        throw .unrecognized("no \"event\", \"taskId\" or \"remaining\" key")
    }

    /// One packet as a JSON object, refused unread when its real `length` (default: the bytes
    /// given) is over `limit`. Shared with the control socket's messages.
    package static func parseObject(_ bytes: [UInt8], length: Int?, limit: Int) throws(LifecycleMessageError) -> JSONValue {
        let size = length ?? bytes.count
        guard size <= limit else { throw .tooLarge(bytes: size, limit: limit) }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .notJSON(error)
        }
        guard case .object = value else { throw .notAnObject }
        return value
    }

    private static func field(_ key: String, of object: JSONValue, in message: String) throws(LifecycleMessageError) -> JSONValue {
        guard let value = object[key] else { throw .missingKey(key, in: message) }
        return value
    }

    private static func string(_ key: String, of object: JSONValue, in message: String) throws(LifecycleMessageError) -> String {
        guard let text = try field(key, of: object, in: message).stringValue else {
            throw .wrongType(key, in: message, expected: "a string")
        }
        return text
    }

    /// A number of seconds, or nil for null or a key left out.
    private static func seconds(_ key: String, of object: JSONValue, in message: String) throws(LifecycleMessageError) -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let seconds = value.doubleValue else { throw .wrongType(key, in: message, expected: "a number or null") }
        return seconds
    }
}
