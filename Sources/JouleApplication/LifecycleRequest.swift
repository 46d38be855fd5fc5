#if canImport(FoundationEssentials)
import FoundationEssentials
#else
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#endif

/// One app → joule request. Nil keys are left out (synthesized `encodeIfPresent`), so
/// `endBackgroundTask` carries no `name` and `backgroundTimeRemaining` only `request`.
struct LifecycleRequest: Sendable, Hashable, Encodable {
    var request: String
    var name: String?
    var taskId: Int?

    static func beginBackgroundTask(name: String) -> LifecycleRequest {
        LifecycleRequest(request: "beginBackgroundTask", name: name)
    }

    static func endBackgroundTask(_ id: Int) -> LifecycleRequest {
        LifecycleRequest(request: "endBackgroundTask", taskId: id)
    }

    static let backgroundTimeRemaining = LifecycleRequest(request: "backgroundTimeRemaining")

    func encoded() throws(JouleApplicationError) -> [UInt8] {
        let data: Data
        // Encoding three plain fields cannot fail; a failure would be a Foundation bug.
        do { data = try JSONEncoder().encode(self) } catch { preconditionFailure("\(error)") }
        guard data.count <= LifecycleSocket.maxPacketBytes else {
            throw .requestTooLarge(bytes: data.count)
        }
        return [UInt8](data)
    }
}
