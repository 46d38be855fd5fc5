import JouleWire
import JouleHardware

/// One packet on the control socket of a `joule run` (`RUNTIME/apps/NAME.control`, mode 0600,
/// so only its user reaches it), which `joule app` uses when no daemon supervises:
/// `{"request":"transition","to":"background"}` → `{"ok":true}` or `{"error":"…"}`;
/// `{"request":"list"}` → `{"apps":[…]}` (the `joule app list` objects);
/// `{"request":"events"}` → `{"ok":true}`, then one event line object per packet.
package enum AppControlMessage: Sendable, Hashable {
    case transition(AppLifecycleRequest)
    case list
    case events

    package static let maxBytes = 65_536

    package var encoded: [UInt8] {
        let object: JSONValue = switch self {
        case .transition(let request): .object(["request": .string("transition"), "to": .string(request.rawValue)])
        case .list: .object(["request": .string("list")])
        case .events: .object(["request": .string("events")])
        }
        return Array(object.serialized.utf8)
    }

    /// `length` is the packet's real size when the socket kept only part of it.
    package static func decode(_ bytes: [UInt8], length: Int? = nil) throws(LifecycleMessageError) -> AppControlMessage {
        let value = try LifecycleMessage.parseObject(bytes, length: length, limit: maxBytes)
        guard let word = value["request"]?.stringValue else { throw .missingKey("request", in: "control message") }
        switch word {
        case "transition":
            guard let to = value["to"]?.stringValue else { throw .missingKey("to", in: "transition") }
            guard let request = AppLifecycleRequest(rawValue: to) else {
                throw .wrongType("to", in: "transition", expected: "one of \(AppLifecycleRequest.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .transition(request)
        case "list": return .list
        case "events": return .events
        default: throw .unknownRequest(word)
        }
    }

    /// `{"ok":true}`
    package static var ok: [UInt8] { Array(JSONValue.object(["ok": .bool(true)]).serialized.utf8) }

    /// `{"error":"…"}`
    package static func error(_ text: String) -> [UInt8] { Array(JSONValue.object(["error": .string(text)]).serialized.utf8) }

    /// `{"apps":[…]}`
    package static func apps(_ entries: [AppListEntry]) -> [UInt8] {
        Array(JSONValue.object(["apps": .array(entries.map(\.json))]).serialized.utf8)
    }
}
