#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif

/// One packet from joule, decoded. Told apart by keys, as the protocol says: events have
/// `event`, `beginBackgroundTask` replies `taskId`, `backgroundTimeRemaining` replies only
/// `remaining`. Written here rather than shared with JoulePolicy so an app links this module alone.
enum LifecyclePacket: Sendable, Hashable, Decodable {
    case event(LifecycleEvent)
    /// taskId nil is a refusal.
    case taskReply(taskId: Int?, remaining: Double)
    /// nil in the foreground.
    case remainingReply(Double?)

    private enum Key: String, CodingKey { case event, state, deadline, taskId, remaining }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if c.contains(.event) {
            let word = try c.decode(String.self, forKey: .event)
            guard let name = LifecycleEventName(rawValue: word) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .event, in: c, debugDescription: "unknown event \"\(word)\"")
            }
            let stateWord = try c.decode(String.self, forKey: .state)
            guard let state = ApplicationState(rawValue: stateWord) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .state, in: c, debugDescription: "unknown state \"\(stateWord)\"")
            }
            let deadline = try c.decodeIfPresent(Double.self, forKey: .deadline)
            self = .event(LifecycleEvent(name: name, state: state, deadline: deadline))
        } else if c.contains(.taskId) {
            let id = try c.decodeNil(forKey: .taskId) ? nil : c.decode(Int.self, forKey: .taskId)
            if let id, id < 1 {
                throw DecodingError.dataCorruptedError(
                    forKey: .taskId, in: c, debugDescription: "taskId \(id) is below 1")
            }
            self = .taskReply(taskId: id, remaining: try c.decodeIfPresent(Double.self, forKey: .remaining) ?? 0)
        } else if c.contains(.remaining) {
            self = .remainingReply(try c.decodeIfPresent(Double.self, forKey: .remaining))
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [], debugDescription: "neither an event nor a reply (no event, taskId or remaining)"))
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> LifecyclePacket {
        try JSONDecoder().decode(LifecyclePacket.self, from: Data(bytes))
    }
}
