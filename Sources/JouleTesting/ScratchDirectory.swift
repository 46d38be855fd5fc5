import Foundation

/// A fresh directory under the temporary directory, removed with everything in it when the
/// value goes away.
public final class ScratchDirectory: Sendable {
    public let path: String

    public init(prefix: String = "joule-scratch") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
